/**
 * Ingest and search figures for the docs service on a generated corpus (not part of the
 * test suite):
 *
 *   pnpm --filter @lore/docs exec tsx bench/ingest-search.ts [--chunks 100000] [--queries 1000]
 *
 * Writes Markdown files (sections of ~900 characters of Zipf-distributed pseudo-words under
 * headings) to a temp folder, ingests them through `ingestInputs` as `lore docs ingest` does
 * (reading, parsing, splitting, hashing, writing documents, chunks and FTS rows), re-ingests
 * unchanged, then times `search_documents`-style searches (BM25 over FTS5, page of 5, with and
 * without a filter). Prints documents/s, chunks/s and search p50/p95/p99.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, databaseFor, loadConfig } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { compileFilter } from '../src/domain/filter.js';
import { ingestInputs } from '../src/domain/ingest.js';
import { DocsSearch } from '../src/domain/search.js';
import { DocsStore } from '../src/domain/store.js';
import * as tables from '../src/tables.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    'sections-per-doc': { type: 'string', default: '10' },
    queries: { type: 'string', default: '1000' },
    keep: { type: 'boolean', default: false },
  },
});
const targetChunks = Number(values.chunks);
const sectionsPerDoc = Number(values['sections-per-doc']);
const queryCount = Number(values.queries);

// A seeded PRNG so that every run measures the same corpus.
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};

// 30,000 pseudo-words, drawn with a Zipf-like distribution (a few very common, a long tail).
const syllables = [
  'ka',
  'lo',
  'mi',
  'ren',
  'to',
  'sha',
  'vi',
  'dor',
  'pel',
  'un',
  'qua',
  'zen',
  'bri',
  'fo',
  'gal',
  'tec',
];
const vocab = Array.from({ length: 30_000 }, (_, i) => {
  let w = '';
  let n = i + 7;
  do {
    w += syllables[n % syllables.length];
    n = Math.floor(n / syllables.length);
  } while (n > 0);
  return w;
});
const zipf = () =>
  vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * Math.log(vocab.length)) - 1))]!;
const sentence = () => {
  const n = 8 + Math.floor(rand() * 12);
  const words = Array.from({ length: n }, zipf);
  return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
};
const paragraph = (chars: number) => {
  let p = '';
  while (p.length < chars) p += `${sentence()} `;
  return p.trim();
};

const docCount = Math.ceil(targetChunks / sectionsPerDoc);
const root = join(tmpdir(), `lore-docs-bench-${process.pid}`);
const corpus = join(root, 'corpus');
console.log(`generating ${docCount} documents × ${sectionsPerDoc} sections in ${corpus} …`);
for (let d = 0; d < docCount; d++) {
  const dir = join(corpus, `area-${d % 50}`);
  if (d < 50) mkdirSync(dir, { recursive: true });
  const parts = [
    `---\ntitle: ${zipf()} ${zipf()} ${d}\ndescription: ${sentence()}\n---\n`,
    `# ${zipf()} ${zipf()} guide ${d}\n`,
  ];
  for (let s = 0; s < sectionsPerDoc; s++)
    parts.push(`## ${zipf()} ${zipf()}\n\n${paragraph(450)}\n\n${paragraph(400)}\n`);
  writeFileSync(join(dir, `doc-${d}.md`), parts.join('\n'));
}

const config = loadConfig({ LORE_DATA_DIR: join(root, 'data'), LORE_LOG_LEVEL: 'silent' });
const db = await openDatabase({
  ...databaseFor(config, 'docs'),
  schema: tables,
  migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
});
const store = new DocsStore(db);
const log = createLogger({ name: 'bench', level: 'silent' });

const cpu0 = process.cpuUsage();
const first = await ingestInputs({ store, log }, [corpus], {
  source: 'bench',
  baseUri: 'https://bench.example/',
});
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const docsPerSec = (first.added / first.seconds).toFixed(0);
const chunksPerSec = (first.chunks / first.seconds).toFixed(0);
console.log(
  `ingest: ${first.added} documents, ${first.chunks} chunks in ${first.seconds.toFixed(2)} s → ${docsPerSec} documents/s, ${chunksPerSec} chunks/s ` +
    `(CPU ${cpuSeconds.toFixed(2)} s → ${(first.chunks / cpuSeconds).toFixed(0)} chunks per CPU-second; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs)`,
);
const again = await ingestInputs({ store, log }, [corpus], {
  source: 'bench',
  baseUri: 'https://bench.example/',
});
console.log(
  `re-ingest (all unchanged): ${again.unchanged} documents in ${again.seconds.toFixed(2)} s → ${(again.unchanged / again.seconds).toFixed(0)} documents/s`,
);

const search = new DocsSearch(store, null);
const queries = Array.from({ length: queryCount }, () => {
  // Questions mix common and rarer words, as real ones do.
  const n = 3 + Math.floor(rand() * 5);
  return `how do I ${Array.from({ length: n }, zipf).join(' ')}?`;
});
const time = async (filter: string | undefined) => {
  const compiled = compileFilter(filter);
  for (const q of queries.slice(0, 50))
    await search.search({ query: q, filter: compiled, offset: 0, limit: 5 }); // warm-up
  const ms: number[] = [];
  let hits = 0;
  const c0 = process.cpuUsage();
  for (const q of queries) {
    const t = performance.now();
    const page = await search.search({ query: q, filter: compiled, offset: 0, limit: 5 });
    ms.push(performance.now() - t);
    hits += page.hits.length;
  }
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000 / queries.length;
  ms.sort((a, b) => a - b);
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))]!.toFixed(2);
  console.log(
    `search${filter ? ` (filter ${filter})` : ''}: ${queries.length} queries, p50 ${pct(50)} ms, p95 ${pct(95)} ms, p99 ${pct(99)} ms, max ${ms[ms.length - 1]!.toFixed(2)} ms; ${cpuMs.toFixed(2)} CPU-ms a query on average (avg ${(hits / queries.length).toFixed(1)} hits)`,
  );
};
await time(undefined);
await time('data_source = "bench" AND update_time > "2020-01-01T00:00:00Z"');

db.$client.close();
if (!values.keep) rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root}`);
