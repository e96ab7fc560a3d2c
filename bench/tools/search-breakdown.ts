/**
 * Where a search's time goes, on the databases a `BENCH_KEEP=1 pnpm bench search` run kept:
 *
 *   BENCH_KEEP=1 pnpm bench search            # prints "kept /tmp/lore-bench-search-XXXX"
 *   npx tsx --conditions=development bench/tools/search-breakdown.ts /tmp/lore-bench-search-XXXX [questions]
 *
 * For each service it times, per question, the whole search and each SQL statement it runs
 * (grouped by kind; "outside SQL" is the rest: rescoring, excerpts, drizzle). For docs it also
 * runs the same search with the exact ranking — the OR of every kept term ranked whole, then the
 * same rescoring and page grouping — and counts the pages that differ: a speed fix must not
 * change what is found. (Knowledge has no such reference here: its planner is the same as docs'
 * and `rankSplitTerms`' test in @lore/search checks it against the OR of all terms.) Wall time
 * and CPU time are both shown: on a shared machine, CPU time is the steadier of the two. Not part
 * of `pnpm bench`: it is the evidence behind BENCHMARKS.md's explanations.
 */
import { join } from 'node:path';
import { DocsSearch, DocsStore } from '@lore/docs';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import { KnowledgeBase } from '@lore/knowledge';
import type { TermSplit } from '@lore/search';
import { Corpus } from '../corpus.js';
import { percentile } from '../lib.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/tools/search-breakdown.ts <kept search data dir> [questions]');
const N = Number(process.argv[3] ?? 200);
const WARM = 20;
const log = createLogger({ name: 'profile', level: 'silent' });
const corpus = new Corpus(42);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Timer = Record<string, { wall: number[]; cpu: number[] }>;
let timers: Timer = {};
/** Per statement kind, the time of the current question (summed when a kind runs twice). */
let current: Record<string, { wall: number; cpu: number }> = {};
const timer = (name: string) => {
  timers[name] ??= { wall: [], cpu: [] };
  return timers[name];
};

async function time<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const w = performance.now();
  const c = cpuMs();
  const r = await fn();
  const t = timer(name);
  t.wall.push(performance.now() - w);
  t.cpu.push(cpuMs() - c);
  return r;
}

/** Times every statement the database runs, by the kind `classify` gives it. */
function instrument(db: Database, classify: (sql: string, params: unknown[]) => string) {
  const all = db.all.bind(db);
  type Query = Parameters<Database['all']>[0];
  const { dialect } = db as unknown as {
    dialect: { sqlToQuery(q: Query): { sql: string; params: unknown[] } };
  };
  const timed = async <T>(text: string, params: unknown[], run: () => Promise<T>): Promise<T> => {
    const kind = `  ${classify(text.replace(/\s+/g, ' ').trim(), params)}`;
    const w = performance.now();
    const c = cpuMs();
    try {
      return await run();
    } finally {
      current[kind] ??= { wall: 0, cpu: 0 };
      const t = current[kind];
      t.wall += performance.now() - w;
      t.cpu += cpuMs() - c;
    }
  };
  db.all = (async (query: Query) => {
    const q = dialect.sqlToQuery(query);
    return timed(q.sql, q.params, () => all(query));
  }) as typeof db.all;
  // The hot statements of a search run as prepared reads (fixed SQL text, prepared once).
  const reads = db.$client.reads;
  const readAll = reads.all.bind(reads);
  const readGet = reads.get.bind(reads);
  reads.all = (text, args = []) => timed(text, args, () => readAll(text, args));
  reads.get = (text, args = []) => timed(text, args, () => readGet(text, args));
}

/** Runs the service's search, charging its statements and the rest ("outside SQL") to timers. */
async function timeSearch<T>(name: string, fn: () => Promise<T>): Promise<T> {
  current = {};
  const w = performance.now();
  const c = cpuMs();
  const r = await fn();
  const wall = performance.now() - w;
  const cpu = cpuMs() - c;
  const push = (k: string, x: { wall: number; cpu: number }) => {
    const t = timer(k);
    t.wall.push(x.wall);
    t.cpu.push(x.cpu);
  };
  push(name, { wall, cpu });
  const sql = Object.values(current).reduce((a, x) => ({ wall: a.wall + x.wall, cpu: a.cpu + x.cpu }), {
    wall: 0,
    cpu: 0,
  });
  push('  outside SQL', { wall: wall - sql.wall, cpu: cpu - sql.cpu });
  for (const [k, x] of Object.entries(current)) push(k, x);
  return r;
}

function report(title: string) {
  process.stdout.write(`\n${title}\n${''.padEnd(60)}${'wall p50'.padStart(10)}${'p99'.padStart(9)}`);
  process.stdout.write(`${'cpu p50'.padStart(10)}${'p99'.padStart(9)}   runs\n`);
  for (const [k, t] of Object.entries(timers)) {
    const w = [...t.wall].sort((a, b) => a - b);
    const c = [...t.cpu].sort((a, b) => a - b);
    const f = (x: number) => x.toFixed(2);
    process.stdout.write(
      `  ${k.padEnd(58)}${f(percentile(w, 50)).padStart(10)}${f(percentile(w, 99)).padStart(9)}` +
        `${f(percentile(c, 50)).padStart(10)}${f(percentile(c, 99)).padStart(9)}   ${w.length}\n`,
    );
  }
  timers = {};
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const rows = async (db: Database, sql: string, args: Array<string | number>) =>
  (await db.$client.execute({ sql, args })).rows as unknown as Array<Record<string, unknown>>;
/**
 * Which ranking of a split a statement runs (see `rankSplitTerms` in @lore/search): `R AND (C)`,
 * `R` whole, or the rows of rare terms alone that could reach the page (`rareOnlyExpressions`).
 */
const shape = (params: unknown[]) => {
  const found = params.find((p) => typeof p === 'string' && p.includes('"')) as string | undefined;
  // Without the agent's scope (`agent:"…" AND `), R and R AND (C) start with their OR in brackets.
  const expr = (found ?? '').replace(/^agent:"(?:[^"]|"")*" AND /, '');
  if (!expr.startsWith('(')) return 'rank rare terms alone (narrowed)';
  return expr.includes(') AND (') ? 'rank R AND (C)' : 'rank R';
};

// ------------------------------------------------------------------ knowledge
{
  const db = await openDatabase({ url: `file:${join(dir, 'node/knowledge.db')}`, schema: {} });
  instrument(db, (sql, params) =>
    sql.startsWith('select coalesce(sum(chunks)')
      ? 'agent summary (revision)'
      : sql.startsWith('select count(*) as n from chunks_fts')
        ? 'stem counts (uncached stems)'
        : sql.includes('from sources s where')
          ? 'source scope'
          : sql.includes('c.id in')
            ? 'candidates: chunks joined to sources'
            : sql.includes('chunks_fts')
              ? `${shape(params)}${sql.includes(' as mine') ? ' (dense range)' : ''}`
              : sql.slice(0, 40),
  );
  const kb = new KnowledgeBase(
    db as unknown as ConstructorParameters<typeof KnowledgeBase>[0],
    new Outbox(db, new MemoryBus(), { node: 'p', service: 'knowledge' }, log),
    null,
    log,
  );
  const [agent] = await rows(
    db,
    'select agent_id as id, sum(chunks) as n from sources group by agent_id order by n desc limit 1',
    [],
  );
  const agentId = String(agent!.id);
  const chunks = Number(agent!.n);
  const questions = Array.from({ length: N + WARM }, (_, i) =>
    corpus.question(corpus.topic((i * 7919) % Math.ceil(chunks / 100))),
  );
  let relevant = 0;
  for (const [i, text] of questions.entries()) {
    const found = await timeSearch('KnowledgeBase.search (whole)', () =>
      kb.search(agentId, text, { limit: 10 }),
    );
    if (i < WARM) {
      timers = {};
      continue;
    }
    relevant += found.passages.some((p) => p.relevant) ? 1 : 0;
  }
  report(`knowledge: 1 agent, ${chunks} chunks, ${N} questions (ms)`);
  process.stdout.write(`  questions with a relevant passage: ${relevant} of ${N}\n`);
  db.$client.close();
}

// ------------------------------------------------------------------ docs
{
  const db = await openDatabase({ url: `file:${join(dir, 'node/docs.db')}`, schema: {} });
  instrument(db, (sql, params) =>
    sql.includes('docs_meta')
      ? 'corpus generation'
      : sql.startsWith('select count(*) as n from chunks_fts')
        ? 'term counts (uncached terms)'
        : sql.includes('chunks_fts')
          ? shape(params)
          : sql.includes('c.id in')
            ? 'page: chunks joined to documents'
            : sql.slice(0, 40),
  );
  const store = new DocsStore(db);
  const search = new DocsSearch(store, null, log);
  // The reference: the same search with every kept term ranked as one OR (no split, no bound).
  type Filter = Parameters<DocsStore['searchBm25']>[1];
  class ExactStore extends DocsStore {
    override searchBm25(terms: TermSplit, filter: Filter, limit: number, offset: number) {
      const all = { rare: [...terms.rare, ...terms.common], common: [], rareBound: Number.POSITIVE_INFINITY };
      return super.searchBm25(all, filter, limit, offset);
    }
  }
  const exact = new DocsSearch(new ExactStore(db), null, log);
  const chunks = Number((await rows(db, 'select count(*) as n from chunks', []))[0]!.n);
  const questions = Array.from({ length: N + WARM }, (_, i) =>
    corpus.question(corpus.topic((i * 104729) % Math.ceil(chunks / 10))),
  );
  const overlap: number[] = [];
  const second = { skipped: 0, whole: 0, narrowed: 0 };
  let identical = 0;
  for (const [i, text] of questions.entries()) {
    const page = await timeSearch('DocsSearch.search (whole)', () =>
      search.search({ query: text, filter: null, offset: 0, limit: 5 }),
    );
    const ran = new Set(Object.keys(current));
    const split = await search.rankingTerms(text);
    const reference = await time('reference (every kept term in one OR)', () =>
      exact.search({ query: text, filter: null, offset: 0, limit: 5 }),
    );
    if (i < WARM) {
      timers = {};
      continue;
    }
    if (split?.common.length) {
      if (ran.has('  rank rare terms alone (narrowed)')) second.narrowed++;
      else if (ran.has('  rank R')) second.whole++;
      else second.skipped++;
    }
    const ids = (p: typeof page) => p.hits.map((h) => h.chunkId);
    if (ids(page).join() === ids(reference).join()) identical++;
    const before = new Set(ids(reference));
    if (before.size) overlap.push(page.hits.filter((h) => before.has(h.chunkId)).length / before.size);
  }
  report(`docs: ${chunks} chunks, ${N} questions (ms)`);
  process.stdout.write(
    `  pages identical to the reference's: ${identical} of ${N}; top 5 ∩ reference's top 5: mean ${pct(mean(overlap))}, min ${pct(Math.min(...overlap))}\n` +
      `  questions with a common term, rows of rare terms alone: not ranked (below the page) ${second.skipped}, ` +
      `ranked whole (R) ${second.whole}, only those that could reach the page ${second.narrowed}\n`,
  );
  db.$client.close();
}
