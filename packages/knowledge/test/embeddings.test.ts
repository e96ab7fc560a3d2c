import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Client, call, ok } from '@lore/kit/testing';
import { KnowledgeRpc, statsRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, eventually, startEnv } from './helpers.js';

const DIM = 64;
// A toy embedding model: bag of words hashed into 64 dimensions, with synonyms folded
// together, so "automobile" lands where "car" is although they share no letters.
const SYNONYMS: Record<string, string> = { automobile: 'car', vehicle: 'car', cars: 'car', motorcar: 'car' };
function embed(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const w = SYNONYMS[raw] ?? raw;
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[Math.abs(h) % DIM]! += 1;
  }
  return v;
}

describe('knowledge sources with an OpenAI-compatible embeddings endpoint', () => {
  let server: Server;
  const requests: Array<{ auth: string | undefined; model: string; inputs: number }> = [];
  let t: Env;
  let erin: Client;
  let erinId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404).end();
          return;
        }
        const { model, input } = JSON.parse(body) as { model: string; input: string[] };
        requests.push({ auth: req.headers.authorization, model, inputs: input.length });
        if (input.some((s) => s.includes('FAILME'))) {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
          return;
        }
        const data = input.map((s, index) => ({ object: 'embedding', index, embedding: embed(s) }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data, model }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    t = await startEnv({
      LORE_EMBEDDINGS_BASE_URL: `http://127.0.0.1:${port}/v1`,
      LORE_EMBEDDINGS_MODEL: 'toy-embed',
      LORE_EMBEDDINGS_API_KEY: 'test-embed-key',
    });
    ({ client: erin, id: erinId } = await t.register('erin'));
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => server.close(r));
  });

  it('embeds every chunk in the background after the upload, with the configured model and key', async () => {
    const r = await call<{ chunks: number; vectors: number }>(erin, 'updateKnowledgeSources', {
      file_name: 'garage.md',
      file_content:
        '# Garage\n\n## Car care\n\nThe car needs new tyres and an oil change every year.\n\n## Bicycles\n\nOil the bicycle chain monthly.',
    });
    // The upload does not wait for vectors: its words are searchable at once.
    expect(r.data.vectors).toBe(0);
    expect(r.data.chunks).toBe(2);
    expect(r.text).toContain('search by meaning follows in the background');
    await eventually(() => requests.some((q) => q.inputs === 2));
    expect(requests.find((q) => q.inputs === 2)).toEqual({
      auth: 'Bearer test-embed-key',
      model: 'toy-embed',
      inputs: 2,
    });
  });

  it('finds by meaning what keywords miss, fused by RRF, without calling it relevant', async () => {
    // The toy model is not calibrated: its similarities rank but do not decide relevance.
    await eventually(
      async () =>
        (await ok<{ passages: unknown[] }>(erin, 'searchKnowledge', { query: 'automobile' })).data.passages
          .length > 0,
    );
    const r = await ok<{
      strategy: string;
      passages: Array<{ source: string; headingPath: string[]; relevant: boolean }>;
    }>(erin, 'searchKnowledge', { query: 'automobile' });
    expect(r.data.strategy).toBe('hybrid');
    expect(r.data.passages[0]).toMatchObject({
      source: 'garage.md',
      headingPath: ['Garage', 'Car care'],
      relevant: false,
    });
    const both = await ok<{ passages: Array<{ headingPath: string[]; relevant: boolean }> }>(
      erin,
      'searchKnowledge',
      { query: 'car tyres oil change' },
    );
    expect(both.data.passages[0]).toMatchObject({ headingPath: ['Garage', 'Car care'], relevant: true });
    const rpc = (await t.env.deps.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: erinId,
      query: 'automobile',
      limit: 3,
    })) as {
      passages: Array<{ relevant: boolean }>;
    };
    expect(rpc.passages.length).toBeGreaterThan(0);
    expect(rpc.passages.every((p) => !p.relevant)).toBe(true);
    const drafted = (await t.env.deps.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: erinId,
      query: 'car tyres oil change',
      limit: 1,
    })) as {
      passages: Array<{ relevant: boolean; headingPath: string[] }>;
    };
    expect(drafted.passages).toEqual([
      expect.objectContaining({ relevant: true, headingPath: ['Garage', 'Car care'] }),
    ]);
  });

  it('says on /readyz and in platform_stats that search reads meaning through the endpoint', async () => {
    const r = await t.knowledge.fetch(new Request('http://local/readyz'));
    expect(r.status).toBe(200);
    expect(((await r.json()) as { details: Record<string, string> }).details).toEqual({
      embeddings: 'endpoint (toy-embed)',
    });
    const stats = (await t.env.deps.bus.request(statsRpc('knowledge').subject, {
      since: new Date(0).toISOString(),
    })) as {
      figures: Record<string, unknown>;
    };
    expect(stats.figures).toMatchObject({ embeddings: 'endpoint', embeddingModel: 'toy-embed' });
  });

  it('forgets vectors of a removed source', async () => {
    await ok(erin, 'removeKnowledgeSource', { source: 'garage.md' });
    expect(
      (await ok<{ passages: unknown[] }>(erin, 'searchKnowledge', { query: 'automobile' })).data.passages,
    ).toEqual([]);
  });

  it('still indexes a source for keywords when the endpoint refuses it, and embeds the others', async () => {
    const r = await call<{ vectors: number; chunks: number }>(erin, 'updateKnowledgeSources', {
      file_name: 'fail.txt',
      file_content: 'FAILME: tectonic plates drift a few centimetres a year.',
    });
    expect(r.isError).toBe(false);
    expect(r.data.vectors).toBe(0);
    await ok(erin, 'updateKnowledgeSources', {
      file_name: 'van.md',
      file_content: 'The car is parked behind the workshop.',
    });
    // The refused chunk does not hold the next source's vector back.
    await eventually(async () =>
      (
        await ok<{ passages: Array<{ source: string }> }>(erin, 'searchKnowledge', { query: 'vehicle' })
      ).data.passages.some((p) => p.source === 'van.md'),
    );
    expect(
      (
        await ok<{ passages: Array<{ source: string }> }>(erin, 'searchKnowledge', {
          query: 'tectonic plates',
        })
      ).data.passages[0]?.source,
    ).toBe('fail.txt');
  });
});
