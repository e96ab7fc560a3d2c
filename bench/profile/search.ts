/**
 * Where a search's time goes, on the databases a `BENCH_KEEP=1 pnpm bench search` run kept:
 *
 *   BENCH_KEEP=1 pnpm bench search            # prints "kept /tmp/lore-bench-search-XXXX"
 *   npx tsx --conditions=development bench/profile/search.ts /tmp/lore-bench-search-XXXX [questions]
 *
 * For each service it times, per question, the whole search and each SQL statement it runs
 * (grouped by kind; "outside SQL" is the rest: rescoring, excerpts, drizzle), and the previous
 * query shape — the OR of every term, ranked by bm25 — with the overlap of its results and the
 * service's: a speed fix must not change what is found. Wall time and CPU time are both shown:
 * on a shared machine, CPU time is the steadier of the two. Not part of `pnpm bench`: it is the
 * evidence behind BENCHMARKS.md's explanations.
 */
import { join } from 'node:path';
import { DocsSearch, DocsStore } from '@lore/docs';
import { createLogger, type Database, MemoryBus, Outbox, openDatabase } from '@lore/kit';
import { agentToken, analyzeQuery, KnowledgeBase, scorePassage, stem } from '@lore/knowledge';
import { tokenize } from '@lore/search';
import { Corpus } from '../corpus.js';
import { percentile } from '../lib.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/profile/search.ts <kept search data dir> [questions]');
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
const q = (t: string) => `"${t.replaceAll('"', '""')}"`;
/** Which expression of a split a ranking statement runs (see rankSplitTerms in @lore/kit). */
const shape = (params: unknown[]) => {
  const expr = params.find((p) => typeof p === 'string' && p.includes('"')) as string | undefined;
  return expr?.includes(') AND (') ? 'rank R AND (C)' : 'rank R';
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
    'select agent_id as id, sum(chunks) as n, 1.0 * sum(tokens) / sum(chunks) as avg from sources group by agent_id',
    [],
  );
  const agentId = String(agent!.id);
  const chunks = Number(agent!.n);
  const scope = `agent:${q(agentToken(agentId))}`;
  const questions = Array.from({ length: N + WARM }, (_, i) =>
    corpus.question(corpus.topic((i * 7919) % Math.ceil(chunks / 100))),
  );
  const overlap: number[] = [];
  const relevant = [0, 0];
  for (const [i, text] of questions.entries()) {
    const a = analyzeQuery(text);
    if (!a.match) continue;
    const found = await timeSearch('KnowledgeBase.search (whole)', () =>
      kb.search(agentId, text, { limit: 10 }),
    );
    // The previous shape: the OR of every stem in the agent's chunks, every stem counted anew.
    const previous = await time('previous shape: OR of all stems + counts + rescoring', async () => {
      const cand = await rows(
        db,
        `select c.id, c.heading_path, c.text
         from (select rowid as id, bm25(chunks_fts, 0.0, 1.0) as r from chunks_fts where chunks_fts match ? order by r limit 50) f
         cross join chunks c on c.id = f.id order by f.r`,
        [`${scope} AND (${a.match})`],
      );
      const df = new Map<string, number>();
      for (const s of a.stems) {
        const [n] = await rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [
          `${scope} AND ${q(s)}`,
        ]);
        df.set(s, Number(n!.n));
      }
      const stats = { chunks, avgLength: Number(agent!.avg), df };
      return cand
        .map((r) => {
          const hp = JSON.parse(String(r.heading_path)) as string[];
          const t = hp.length ? `${hp.join(' / ')}\n${r.text}` : String(r.text);
          return { id: String(r.id), s: scorePassage(a, tokenize(t).map(stem), stats) };
        })
        .filter((p) => p.s.score > 0)
        .sort((x, y) => y.s.score - x.s.score)
        .slice(0, 10);
    });
    if (i < WARM) {
      timers = {};
      continue;
    }
    const before = new Set(previous.map((p) => p.id));
    if (before.size) overlap.push(found.passages.filter((p) => before.has(p.id)).length / before.size);
    relevant[0]! += previous.some((p) => p.s.relevant) ? 1 : 0;
    relevant[1]! += found.passages.some((p) => p.relevant) ? 1 : 0;
  }
  report(`knowledge: 1 agent, ${chunks} chunks, ${N} questions (ms)`);
  process.stdout.write(
    `  service's top 10 ∩ previous shape's top 10: mean ${pct(mean(overlap))}, min ${pct(Math.min(...overlap))}\n` +
      `  questions with a relevant passage: previous ${relevant[0]}, service ${relevant[1]} of ${N}\n`,
  );
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
  const chunks = Number((await rows(db, 'select count(*) as n from chunks', []))[0]!.n);
  const questions = Array.from({ length: N + WARM }, (_, i) =>
    corpus.question(corpus.topic((i * 104729) % Math.ceil(chunks / 10))),
  );
  const overlap: number[] = [];
  let skipped = 0;
  for (const [i, text] of questions.entries()) {
    const page = await timeSearch('DocsSearch.search (whole)', () =>
      search.search({ query: text, filter: null, offset: 0, limit: 5 }),
    );
    const ran = new Set(Object.keys(current));
    const split = await search.rankingTerms(text);
    if (!split) continue;
    // The previous shape: the OR of every kept term, as one expression.
    const all = { rare: [...split.rare, ...split.common], common: [], rareBound: Number.POSITIVE_INFINITY };
    const previous = await time('previous shape: OR of the kept terms, bm25, page', () =>
      store.searchBm25(all, null, 6, 0),
    );
    if (i < WARM) {
      timers = {};
      continue;
    }
    if (split.common.length && !ran.has('  rank R')) skipped++;
    const before = new Set(previous.slice(0, 5).map((h) => h.chunkId));
    if (before.size) overlap.push(page.hits.filter((h) => before.has(h.chunkId)).length / before.size);
  }
  report(`docs: ${chunks} chunks, ${N} questions (ms)`);
  process.stdout.write(
    `  service's top 5 ∩ previous shape's top 5: mean ${pct(mean(overlap))}, min ${pct(Math.min(...overlap))}\n` +
      `  questions whose rows without a common term could not reach the page (rank R skipped): ${skipped}\n`,
  );
  db.$client.close();
}
