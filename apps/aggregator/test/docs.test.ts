import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createDocsService, runDocsCli } from '@lore/docs';
import type { LoreConfig } from '@lore/kit';
import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

interface SearchOut {
  results: Array<{
    parent: string;
    id: string;
    content: string;
    relevanceScore: number;
    document: { name: string; title: string; uri: string };
  }>;
  nextPageToken: string;
}
interface GetOut {
  documents: Array<{
    name: string;
    uri: string;
    title: string;
    description: string;
    content: string;
    dataSource: string;
    updateTime: string;
  }>;
  missing: Array<{ name: string; error: string }>;
}

function writeTree(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** `lore docs ingest …` against the same configuration as the running node; returns the summary line. */
async function ingest(config: LoreConfig, args: string[]): Promise<string> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    ({
      write: (c: string | Uint8Array) => {
        append(String(c));
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
  const code = await runDocsCli(['docs', 'ingest', ...args], {
    config,
    stdout: sink((s) => {
      out += s;
    }),
    stderr: sink((s) => {
      err += s;
    }),
    isTTY: false,
  });
  if (code !== 0) throw new Error(`docs ingest exited with ${code}: ${err}`);
  return out.trim();
}

describe('the docs service through the aggregator', () => {
  const dir = tempDir();
  const corpus = join(dir.path, 'handbook');
  let config: LoreConfig;
  let lore: AllInOne;
  let reader: Client;
  let site: Server;
  let siteUrl: string;
  const fetched: string[] = [];

  beforeAll(async () => {
    config = testConfig(join(dir.path, 'data'), {
      LORE_RATE_LIMITS: 'false',
      // The test's web server is on loopback, which the crawler refuses unless allowed.
      LORE_CRAWL_ALLOW_PRIVATE: 'true',
      LORE_ANSWER_QUOTA_PER_MINUTE: '2',
      LORE_ANSWER_QUOTA_PER_DAY: '4',
    });
    lore = await startAllInOne(config, {
      services: [
        { name: 'users', create: createUsersService },
        { name: 'docs', create: (deps) => createDocsService(deps) },
      ],
    });
    const anon = await connectClient(appFetch(lore.app));
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: 'doc_reader',
      email: 'r@example.com',
      displayName: 'Reader',
    });
    reader = await connectClient(appFetch(lore.app), { key: reg.data.apiKey });

    const steps = Array.from(
      { length: 12 },
      (_, i) => `## Step ${i + 1}\n\nTighten bolt ${i + 1} of the gearbox with the torque wrench.`,
    ).join('\n\n');
    writeTree(corpus, {
      'gearbox.md': `---\ntitle: Gearbox service\ndescription: Servicing the gearbox step by step.\n---\n# Gearbox\n\n${steps}`,
      'brakes.md':
        '# Brakes\n\nBrake pads wear out after about 40,000 km; replace them when they are thinner than 3 mm.',
      'tyres.mdx':
        "import Callout from './callout';\n\n# Tyres\n\n<Callout>\n\nInflate tyres to 2.2 bar when cold.\n\n</Callout>",
      'lights.html':
        '<html><head><title>Lights | Handbook</title><meta name="description" content="Headlights and indicators."></head>' +
        '<body><nav>Menu</nav><main><h1>Lights</h1><p>Aim the <strong>headlights</strong> 1% below horizontal.</p><ul><li>Low beam</li><li>High beam</li></ul></main></body></html>',
      'notes.txt': 'Workshop notes\n\nKeep the workshop floor dry.',
    });

    site = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      fetched.push(`${path} ${req.headers['user-agent']}`);
      const page = (title: string, body: string, links = '') =>
        `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links}</main></body></html>`;
      if (path === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /manual/internal\n');
      } else if (path === '/manual/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          page(
            'Manual',
            'The owner manual of the flux car.',
            '<a href="/manual/charging">Charging</a> <a href="/manual/internal">Internal</a>',
          ),
        );
      } else if (path === '/manual/charging') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page('Charging', 'Charge the flux car battery overnight with the wall box.'));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => site.close(r));
    await lore.close();
    dir.cleanup();
  });

  it('ingests with the CLI while the node runs, and re-ingests by content hash', async () => {
    const first = await ingest(config, [
      corpus,
      '--source',
      'handbook',
      '--base-uri',
      'https://handbook.example.com/',
    ]);
    expect(first).toMatch(/^Ingested "handbook": 5 added, 0 updated, 0 removed, 0 unchanged; \d+ chunks in/);
    const same = await ingest(config, [
      corpus,
      '--source',
      'handbook',
      '--base-uri',
      'https://handbook.example.com/',
    ]);
    expect(same).toMatch(/: 0 added, 0 updated, 0 removed, 5 unchanged; 0 chunks/);

    writeFileSync(
      join(corpus, 'brakes.md'),
      '# Brakes\n\nBrake pads wear out after about 50,000 km; replace them when thinner than 3 mm.',
    );
    rmSync(join(corpus, 'notes.txt'));
    writeTree(corpus, { 'wipers.md': '# Wipers\n\nReplace wiper blades every autumn.' });
    const changed = await ingest(config, [
      corpus,
      '--source',
      'handbook',
      '--base-uri',
      'https://handbook.example.com/',
    ]);
    expect(changed).toMatch(/: 1 added, 1 updated, 1 removed, 3 unchanged;/);

    const r = await ok<GetOut>(reader, 'get_documents', {
      names: ['documents/handbook.example.com/notes', 'documents/handbook.example.com/brakes'],
    });
    expect(r.data.missing).toEqual([{ name: 'documents/handbook.example.com/notes', error: 'not found' }]);
    expect(r.data.documents[0]!.content).toContain('50,000 km');
    expect(
      (await ok<SearchOut>(reader, 'search_documents', { query: 'workshop floor' })).data.results,
    ).toEqual([]);
  });

  it('serves the three tools with their annotations in the catalog', async () => {
    const { tools } = await reader.listTools();
    for (const name of ['answer_query', 'search_documents', 'get_documents']) {
      const t = tools.find((x) => x.name === name);
      expect(t?.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(lore.aggregator.owner(name)).toBe('docs');
    }
  });

  it('search_documents: chunk shapes and page tokens', async () => {
    const first = await ok<SearchOut>(reader, 'search_documents', {
      query: 'tighten gearbox bolts with the torque wrench',
    });
    expect(first.data.results).toHaveLength(5);
    expect(first.data.results[0]).toEqual({
      parent: 'documents/handbook.example.com/gearbox',
      id: expect.stringMatching(/^chunk_\d+$/),
      content: expect.stringContaining('torque wrench'),
      relevanceScore: expect.any(Number),
      document: {
        name: 'documents/handbook.example.com/gearbox',
        title: 'Gearbox service',
        uri: 'https://handbook.example.com/gearbox',
      },
      // Without an embedding model (tests run with LORE_EMBEDDINGS=off) words alone find it.
      foundBy: ['words'],
    });
    const ids = first.data.results.map((r) => r.id);
    let token = first.data.nextPageToken;
    while (token) {
      const page = await ok<SearchOut>(reader, 'search_documents', {
        query: 'tighten gearbox bolts with the torque wrench',
        pageToken: token,
      });
      ids.push(...page.data.results.map((r) => r.id));
      token = page.data.nextPageToken;
    }
    expect(new Set(ids).size).toBe(12);
    const wrong = await call(reader, 'search_documents', {
      query: 'brakes',
      pageToken: first.data.nextPageToken,
    });
    expect(wrong.error).toMatchObject({ code: 400, data: { field: 'pageToken' } });
    const filtered = await ok<SearchOut>(reader, 'search_documents', {
      query: 'replace',
      filter: 'uri = "https://handbook.example.com/wipers"',
    });
    expect(filtered.data.results.map((r) => r.parent)).toEqual(['documents/handbook.example.com/wipers']);
  });

  it('get_documents: HTML and MDX arrive as Markdown, in the order asked, at most 20 names', async () => {
    const r = await ok<GetOut>(reader, 'get_documents', {
      names: [
        'documents/handbook.example.com/tyres',
        'documents/unknown/page',
        'documents/handbook.example.com/lights',
      ],
    });
    expect(r.data.documents.map((d) => d.name)).toEqual([
      'documents/handbook.example.com/tyres',
      'documents/handbook.example.com/lights',
    ]);
    expect(r.data.missing).toEqual([{ name: 'documents/unknown/page', error: 'not found' }]);
    const [tyres, lights] = r.data.documents;
    expect(tyres!.content).toBe('# Tyres\n\nInflate tyres to 2.2 bar when cold.');
    expect(lights).toMatchObject({
      title: 'Lights',
      description: 'Headlights and indicators.',
      uri: 'https://handbook.example.com/lights',
      dataSource: 'handbook',
      updateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(lights!.content).toMatch(
      /^# Lights\n\nAim the \*\*headlights\*\* 1% below horizontal\.\n\n- +Low beam\n- +High beam$/,
    );
    const cap = await call(reader, 'get_documents', {
      names: Array.from({ length: 21 }, (_, i) => `documents/x/${i}`),
    });
    expect(cap.error).toMatchObject({ code: 400, data: { field: 'names' } });
  });

  it('answer_query: a cited answer, then the quota and its hint', async () => {
    const anon = await connectClient(appFetch(lore.app));
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: 'doc_asker',
      email: 'a@example.com',
      displayName: 'Asker',
    });
    const asker = await connectClient(appFetch(lore.app), { key: reg.data.apiKey });
    const r = await ok<{ answerText: string; references: string[]; strategy: string }>(
      asker,
      'answer_query',
      {
        query: 'When should brake pads be replaced?',
      },
    );
    expect(r.data.strategy).toBe('extractive');
    expect(r.data.references[0]).toBe('documents/handbook.example.com/brakes');
    expect(r.data.answerText).toMatch(/3 mm\.? \[1\]/);
    await ok(asker, 'answer_query', { query: 'How full should tyres be?' });
    const refused = await call(asker, 'answer_query', { query: 'How full should tyres be?' });
    expect(refused.error?.code).toBe(429);
    expect(refused.error?.message).toMatch(/use search_documents/);
    expect(refused.error?.data?.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('ingests pages from a web server, obeying robots.txt', async () => {
    const line = await ingest(config, [`${siteUrl}/manual/`, '--source', 'flux']);
    expect(line).toMatch(/^Ingested "flux": 2 added/);
    expect(fetched.some((f) => f.startsWith('/manual/internal'))).toBe(false);
    expect(fetched.every((f) => / LoreBot\//.test(` ${f.split(' ').slice(1).join(' ')}`))).toBe(true);
    const host = new URL(siteUrl).host;
    const r = await ok<SearchOut>(reader, 'search_documents', {
      query: 'charge the battery overnight',
      filter: 'data_source = "flux"',
    });
    expect(r.data.results[0]?.parent).toBe(`documents/${host}/manual/charging`);
    expect(r.data.results[0]?.document.uri).toBe(`${siteUrl}/manual/charging`);
  });
});
