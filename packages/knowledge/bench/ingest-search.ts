/**
 * Ingest rate and search latency on a generated knowledge base of ~10k chunks.
 *
 *   pnpm --filter @lore/knowledge bench            (or: npx tsx packages/knowledge/bench/ingest-search.ts)
 *   … -- --chunks 10000 --queries 500 --embeddings
 *
 * Everything runs in this process: the users and knowledge services on the in-process bus,
 * temporary databases, a real MCP client over the services' fetch. Ingest goes through
 * updateKnowledgeSources and is timed until every KnowledgeSourceAdded event has been
 * delivered. Search is timed through searchKnowledge (MCP) and through KnowledgeRpc.retrieve.
 * With --embeddings, a local toy /v1/embeddings server (384-d hashed bag of words) is used.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { appFetch, call, connectClient, ok, testDeps } from '@lore/kit/testing';
import { KnowledgeRpc, KnowledgeSourceAdded } from '@lore/schema';
import { createUsersService } from '@lore/users/testing';
import { createKnowledgeService } from '../src/index.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '500' },
    embeddings: { type: 'boolean', default: false },
  },
});
const TARGET = Number(args.chunks);
const QUERIES = Number(args.queries);

// Deterministic text: a Zipf-like vocabulary of made-up words plus a topic per source.
let seed = 42;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const SYLLABLES = [
  'ka',
  'lo',
  'ri',
  'ten',
  'sum',
  'bra',
  'qui',
  'dor',
  'fel',
  'mon',
  'zu',
  'pha',
  'nor',
  'vel',
  'tis',
  'gra',
];
const word = () =>
  Array.from(
    { length: 2 + Math.floor(rand() * 3) },
    () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)],
  ).join('');
const VOCAB = Array.from({ length: 6000 }, word);
const zipf = () => VOCAB[Math.floor(VOCAB.length * rand() ** 3)]!;
const STOP = ['the', 'of', 'and', 'a', 'to', 'in', 'is', 'that', 'for', 'with'];
const sentence = (topic: string[]) =>
  `${Array.from({ length: 12 + Math.floor(rand() * 10) }, () => (rand() < 0.3 ? STOP[Math.floor(rand() * STOP.length)] : rand() < 0.15 ? topic[Math.floor(rand() * topic.length)] : zipf())).join(' ')}.`;
const paragraph = (topic: string[]) => Array.from({ length: 7 }, () => sentence(topic)).join(' ');

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main() {
  let embedServer: ReturnType<typeof createServer> | undefined;
  const env: Record<string, string> = {
    LORE_RATE_LIMITS: 'false',
    LORE_MAX_BODY_BYTES: String(8 * 1024 * 1024),
  };
  if (args.embeddings) {
    embedServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const { input } = JSON.parse(body) as { input: string[] };
        const data = input.map((s, index) => {
          const v = new Array<number>(384).fill(0);
          for (const w of s.toLowerCase().match(/[a-z]+/g) ?? []) {
            let h = 2166136261;
            for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
            v[Math.abs(h) % 384]! += 1;
          }
          return { index, embedding: v };
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      });
    });
    await new Promise<void>((r) => embedServer!.listen(0, '127.0.0.1', r));
    env.LORE_EMBEDDINGS_BASE_URL = `http://127.0.0.1:${(embedServer.address() as AddressInfo).port}/v1`;
  }
  const t = testDeps(env);
  const users = await createUsersService(t.deps);
  const knowledge = await createKnowledgeService(t.deps);
  await users.start();
  await knowledge.start();
  let delivered = 0;
  await t.deps.bus.listen(KnowledgeSourceAdded.subject, () => {
    delivered++;
  });
  const anon = await connectClient(appFetch(users.app));
  const reg = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
    username: 'bench',
    email: 'bench@example.com',
    displayName: 'bench',
  });
  const client = await connectClient(appFetch(knowledge.app), { key: reg.data.apiKey });

  // ---- ingest
  const topics: string[][] = [];
  let chunks = 0;
  let sources = 0;
  const t0 = performance.now();
  while (chunks < TARGET) {
    const topic = Array.from({ length: 4 }, word);
    topics.push(topic);
    const body = Array.from({ length: 100 }, (_, i) => `## ${topic[i % 4]} ${i}\n\n${paragraph(topic)}`).join(
      '\n\n',
    );
    const r = await ok<{ chunks: number }>(client, 'updateKnowledgeSources', {
      file_name: `source-${sources}.md`,
      file_content: body,
    });
    chunks += r.data.chunks;
    sources++;
  }
  while (delivered < sources) await new Promise((r) => setTimeout(r, 5));
  const ingestMs = performance.now() - t0;

  // ---- search
  const queries = Array.from({ length: QUERIES }, (_, i) => {
    const topic = topics[Math.floor(rand() * topics.length)]!;
    if (i % 3 === 0) return `What is known about ${topic[0]} and ${zipf()}?`;
    if (i % 3 === 1) return `${topic[1]} ${topic[2]} ${zipf()} ${zipf()}`;
    return `${zipf()} ${zipf()} the of and`;
  });
  for (const q of queries.slice(0, 20)) await call(client, 'searchKnowledge', { query: q }); // warm-up
  const mcp: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await ok(client, 'searchKnowledge', { query: q, limit: 10 });
    mcp.push(performance.now() - s);
  }
  const rpc: number[] = [];
  let relevant = 0;
  for (const q of queries) {
    const s = performance.now();
    const r = (await t.deps.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: reg.data.agent.id,
      query: q,
      limit: 5,
    })) as { passages: Array<{ relevant: boolean }> };
    rpc.push(performance.now() - s);
    if (r.passages.some((p) => p.relevant)) relevant++;
  }
  mcp.sort((a, b) => a - b);
  rpc.sort((a, b) => a - b);

  const lines = [
    `knowledge bench — ${args.embeddings ? 'hybrid (BM25 + 384-d vectors, toy local endpoint)' : 'BM25 only'}, node ${process.version}`,
    `ingest: ${chunks} chunks in ${sources} sources, ${(ingestMs / 1000).toFixed(2)} s through updateKnowledgeSources (events delivered) → ${Math.round(chunks / (ingestMs / 1000))} chunks/s`,
    `searchKnowledge over MCP (${QUERIES} queries, limit 10): p50 ${fmt(percentile(mcp, 50))}, p99 ${fmt(percentile(mcp, 99))}, max ${fmt(mcp.at(-1)!)}`,
    `${KnowledgeRpc.retrieve.subject} (${QUERIES} queries, limit 5): p50 ${fmt(percentile(rpc, 50))}, p99 ${fmt(percentile(rpc, 99))}, max ${fmt(rpc.at(-1)!)}; ${relevant} with a relevant passage`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  await knowledge.stop();
  await users.stop();
  await t.cleanup();
  if (embedServer) await new Promise((r) => embedServer!.close(r));
}

await main();
