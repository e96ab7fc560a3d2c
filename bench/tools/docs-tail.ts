/**
 * The slowest docs searches, one by one, on the docs database a `BENCH_KEEP=1 pnpm bench search`
 * run kept:
 *
 *   npx tsx --conditions=development bench/tools/docs-tail.ts /tmp/lore-bench-search-XXXX [questions] [rounds]
 *
 * Runs `DocsSearch.search` on the bench's docs questions (CPU time per question, median of
 * `rounds` passes after a warm-up pass, so that a busy machine's noise falls out) and prints the
 * percentiles and the slowest 1 %: the question, its split (rare and common terms with their
 * document frequencies) and each FTS5 statement it ran, with its CPU time and the rows its
 * expression matches. `BENCH_DOCS_DB` points it at another copy of the docs database (an
 * optimized one, say). Not part of `pnpm bench`.
 */
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { DocsSearch, DocsStore } from '@lore/docs';
import { createLogger } from '@lore/kit';
import { openDatabase } from '@lore/kit/db';
import { Corpus } from '../corpus.js';
import { percentile } from '../lib.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/tools/docs-tail.ts <kept search data dir> [questions] [rounds]');
const N = Number(process.argv[3] ?? 400);
const ROUNDS = Number(process.argv[4] ?? 3);
const log = createLogger({ name: 'profile', level: 'silent' });
const corpus = new Corpus(42);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const db = await openDatabase({
  url: `file:${process.env.BENCH_DOCS_DB ?? join(dir, 'node/docs.db')}`,
  schema: {},
});
const store = new DocsStore(db);
const search = new DocsSearch(store, null, log);
const chunks = Number((await db.$client.execute('select count(*) as n from chunks')).rows[0]!.n);
// The bench's timed docs questions (its first 30 are its warm-up).
const questions = Array.from({ length: N }, (_, i) =>
  corpus.question(corpus.topic(((i + 30) * 104729) % Math.ceil(chunks / 10))),
);

/** The FTS5 statements of the current search: expression, CPU ms. */
let statements: Array<{ match: string; cpu: number }> = [];
const reads = db.$client.reads;
const readAll = reads.all.bind(reads);
reads.all = async (text, args = []) => {
  const c = cpuMs();
  try {
    return await readAll(text, args);
  } finally {
    if (text.includes('bm25(')) statements.push({ match: String(args[0]), cpu: cpuMs() - c });
  }
};

// Garbage collections, charged to the search they happened in (their pause is wall time the
// search waits, whoever allocated).
const gcs: Array<{ start: number; duration: number }> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, duration: e.duration });
}).observe({ entryTypes: ['gc'] });
const gcIn = (from: number, to: number) =>
  gcs.filter((g) => g.start >= from && g.start < to).reduce((sum, g) => sum + g.duration, 0);
const single: Array<{ wall: number; cpu: number; from: number }> = [];

const cpu: number[][] = questions.map(() => []);
const wall: number[][] = questions.map(() => []);
const ran: Array<Array<{ match: string; cpu: number }>> = [];
for (let round = 0; round <= ROUNDS; round++) {
  for (const [i, q] of questions.entries()) {
    statements = [];
    const w = performance.now();
    const c = cpuMs();
    await search.search({ query: q, filter: null, offset: 0, limit: 5 });
    if (round === 0) continue; // warm-up: JIT, page cache, term counts
    cpu[i]!.push(cpuMs() - c);
    wall[i]!.push(performance.now() - w);
    single.push({ wall: performance.now() - w, cpu: cpu[i]!.at(-1)!, from: w });
    ran[i] = statements;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const perQuestion = questions.map((q, i) => ({ q, i, cpu: median(cpu[i]!), wall: median(wall[i]!) }));
const sorted = [...perQuestion].sort((a, b) => a.cpu - b.cpu);
const cpus = sorted.map((x) => x.cpu);
const walls = perQuestion.map((x) => x.wall).sort((a, b) => a - b);
const f = (x: number) => x.toFixed(2);
process.stdout.write(
  `docs: ${chunks} chunks, ${N} questions, median of ${ROUNDS} rounds a question\n` +
    `  CPU ms p50 ${f(percentile(cpus, 50))} p90 ${f(percentile(cpus, 90))} p99 ${f(percentile(cpus, 99))} max ${f(cpus.at(-1)!)}\n` +
    `  wall ms p50 ${f(percentile(walls, 50))} p90 ${f(percentile(walls, 90))} p99 ${f(percentile(walls, 99))}\n`,
);
// Every pass's searches one by one, as a benchmark sees them, and the GC pauses inside them.
await new Promise((resolve) => setTimeout(resolve, 50)); // the last GC entries
const byWall = [...single].sort((a, b) => a.wall - b.wall);
const tail = byWall.slice(-Math.ceil(single.length / 100));
const gcOf = (x: { wall: number; from: number }) => gcIn(x.from, x.from + x.wall);
process.stdout.write(
  `  single searches (${single.length}): wall p50 ${f(
    percentile(
      byWall.map((x) => x.wall),
      50,
    ),
  )} p99 ${f(
    percentile(
      byWall.map((x) => x.wall),
      99,
    ),
  )}; ` +
    `CPU p99 ${f(
      percentile(
        single.map((x) => x.cpu).sort((a, b) => a - b),
        99,
      ),
    )}\n` +
    `  slowest 1 % by wall: wall mean ${f(tail.reduce((n, x) => n + x.wall, 0) / tail.length)}, CPU mean ${f(tail.reduce((n, x) => n + x.cpu, 0) / tail.length)}, ` +
    `GC inside mean ${f(tail.reduce((n, x) => n + gcOf(x), 0) / tail.length)} ms (all searches: GC mean ${f(single.reduce((n, x) => n + gcOf(x), 0) / single.length)} ms)\n`,
);
const count = async (match: string) =>
  Number(
    (
      await db.$client.execute({
        sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
        args: [match],
      })
    ).rows[0]!.n,
  );
const slowest = sorted.slice(-Math.max(1, Math.ceil(N / 100) * 2)).reverse();
process.stdout.write(`\nslowest ${slowest.length} (CPU ms, median):\n`);
for (const s of slowest) {
  const split = await search.rankingTerms(s.q);
  const dfs = async (ts: string[]) =>
    (await Promise.all(ts.map(async (t) => `${t}:${await count(`"${t}"`)}`))).join(' ');
  process.stdout.write(`\n  ${f(s.cpu)} ms  ${s.q}\n`);
  if (split)
    process.stdout.write(`    rare ${await dfs(split.rare)}\n    common ${await dfs(split.common)}\n`);
  for (const st of ran[s.i] ?? [])
    process.stdout.write(
      `    ${f(st.cpu).padStart(6)} ms ${String(await count(st.match)).padStart(6)} rows  ${st.match}\n`,
    );
}
db.$client.close();
