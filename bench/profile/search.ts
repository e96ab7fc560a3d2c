/**
 * Where a search's time goes, on the databases a `BENCH_KEEP=1 pnpm bench search` run kept:
 *
 *   BENCH_KEEP=1 pnpm bench search            # prints "kept /tmp/lore-bench-search-XXXX"
 *   npx tsx bench/profile/search.ts /tmp/lore-bench-search-XXXX [questions]
 *
 * For each service it times, per question, the whole search and its SQL statements one by one
 * (the same SQL the service runs, copied here), and an alternative query shape (candidates from
 * the question's rarer terms only), with the overlap of its top 10 with the service's top 10 —
 * a speed fix must not change what is found. Not part of `pnpm bench`: it is the evidence
 * behind BENCHMARKS.md's explanations.
 */
import { join } from 'node:path';
import { DocsSearch, DocsStore } from '@lore/docs';
import { createLogger, type Database, MemoryBus, Outbox, openDatabase, tokenize } from '@lore/kit';
import { agentToken, analyzeQuery, KnowledgeBase, scorePassage, stem } from '@lore/knowledge';
import { Corpus } from '../corpus.js';
import { percentile } from '../lib.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/profile/search.ts <kept search data dir> [questions]');
const N = Number(process.argv[3] ?? 200);
const log = createLogger({ name: 'profile', level: 'silent' });
const corpus = new Corpus(42);

type Timer = Record<string, number[]>;
const timers: Timer = {};
async function time<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  const list = timers[name] ?? [];
  list.push(performance.now() - t0);
  timers[name] = list;
  return r;
}
function report(title: string, extra: Record<string, number[]> = {}) {
  process.stdout.write(`\n${title}\n`);
  for (const [k, xs] of Object.entries({ ...timers, ...extra })) {
    const s = [...xs].sort((a, b) => a - b);
    const mean = s.reduce((a, b) => a + b, 0) / s.length;
    process.stdout.write(
      `  ${k.padEnd(58)} p50 ${percentile(s, 50).toFixed(2).padStart(8)}  p99 ${percentile(s, 99).toFixed(2).padStart(8)}  mean ${mean.toFixed(2).padStart(8)}\n`,
    );
  }
  for (const k of Object.keys(timers)) delete timers[k];
}
const rows = async (db: Database, sql: string, args: Array<string | number>) =>
  (await db.$client.execute({ sql, args })).rows as unknown as Array<Record<string, unknown>>;
const q = (t: string) => `"${t.replaceAll('"', '""')}"`;

// ------------------------------------------------------------------ knowledge
{
  const db = await openDatabase({ url: `file:${join(dir, 'node/knowledge.db')}`, schema: {} });
  const kb = new KnowledgeBase(
    db as unknown as ConstructorParameters<typeof KnowledgeBase>[0],
    new Outbox(db, new MemoryBus(), { node: 'p', service: 'knowledge' }, log),
    null,
    log,
  );
  const [agent] = await rows(
    db,
    'select agent_id as id, sum(chunks) as n from sources group by agent_id',
    [],
  );
  const agentId = String(agent!.id);
  const chunks = Number(agent!.n);
  const token = agentToken(agentId);
  const scope = `agent:${q(token)}`;
  const sources = Math.ceil(chunks / 100);
  const questions = Array.from({ length: N + 20 }, (_, i) =>
    corpus.question(corpus.topic((i * 7919) % sources)),
  );
  const matched: number[] = [];
  const overlap: number[] = [];
  const overlap2: number[] = [];
  const relevant = [0, 0, 0];
  const candidates: number[] = [];
  const dfCache = new Map<string, number>();
  for (const [i, text] of questions.entries()) {
    const warm = i < 20;
    const a = analyzeQuery(text);
    if (!a.match) continue;
    const full = await time('KnowledgeBase.search (whole)', () => kb.search(agentId, text, { limit: 10 }));
    const expr = `${scope} AND (${a.match})`;
    await time('  lexical: FTS5 OR of all terms, bm25 top 50 + join', () =>
      rows(
        db,
        `select c.id, s.name as source, c.position, c.heading_path, c.text
         from (select rowid as id, bm25(chunks_fts, 0.0, 1.0) as r from chunks_fts where chunks_fts match ? order by r limit 50) f
         cross join chunks c on c.id = f.id cross join sources s on s.id = c.source_id
         where +c.agent_id = ? order by f.r limit 50`,
        [expr, agentId],
      ),
    );
    const n = await time('  lexical: rows matching the OR (count only)', () =>
      rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [expr]),
    );
    matched.push(Number(n[0]!.n));
    const dfs = await time('  corpusStats: count(*) per stem (as the service runs it)', async () => {
      const out = new Map<string, number>();
      for (const s of a.stems)
        out.set(
          s,
          Number(
            (
              await rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [
                `${scope} AND ${q(s)}`,
              ])
            )[0]!.n,
          ),
        );
      return out;
    });
    // The alternative: df from a cache (the agent's chunks did not change), candidates from the
    // terms found in at most 5% of the agent's chunks (or the 3 rarest when none is), rescored alike.
    const alt = await time('ALTERNATIVE: cached df + rarer terms only (whole)', async () => {
      const df = new Map<string, number>();
      for (const s of a.stems) {
        let v = dfCache.get(s);
        if (v === undefined) {
          v = Number(
            (
              await rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [
                `${scope} AND ${q(s)}`,
              ])
            )[0]!.n,
          );
          dfCache.set(s, v);
        }
        df.set(s, v);
      }
      const byRarity = [...a.stems].sort((x, y) => df.get(x)! - df.get(y)!);
      let pick = byRarity.filter((s) => df.get(s)! > 0 && df.get(s)! <= chunks * 0.05);
      if (pick.length === 0) pick = byRarity.filter((s) => df.get(s)! > 0).slice(0, 3);
      if (pick.length === 0) return [];
      const cand = await rows(
        db,
        `select c.id, c.heading_path, c.text
         from (select rowid as id, bm25(chunks_fts, 0.0, 1.0) as r from chunks_fts where chunks_fts match ? order by r limit 50) f
         cross join chunks c on c.id = f.id where +c.agent_id = ? order by f.r limit 50`,
        [`${scope} AND (${pick.map(q).join(' OR ')})`, agentId],
      );
      candidates.push(cand.length);
      const [stats] = await rows(
        db,
        'select coalesce(sum(chunks), 0) as n, 1.0 * sum(tokens) / max(sum(chunks), 1) as avg from sources where agent_id = ?',
        [agentId],
      );
      const cs = { chunks: Number(stats!.n), avgLength: Number(stats!.avg), df };
      return cand
        .map((r) => {
          const hp = JSON.parse(String(r.heading_path)) as string[];
          const t = hp.length ? `${hp.join(' / ')}\n${r.text}` : String(r.text);
          return { id: String(r.id), s: scorePassage(a, tokenize(t).map(stem), cs) };
        })
        .filter((p) => p.s.score > 0)
        .sort((x, y) => y.s.score - x.s.score)
        .slice(0, 10);
    });
    // The same, but exact within its candidates: rows with a rarer term, ranked by bm25 over
    // every term — FTS5 scores each row alike whatever else the expression says, so the
    // candidates keep the score the service's OR gives them (two queries: with and without a
    // common term).
    const alt2 = await time('ALTERNATIVE 2: rows with a rarer term, bm25 of all (whole)', async () => {
      const df = new Map<string, number>();
      for (const s of a.stems) df.set(s, dfCache.get(s) ?? dfs.get(s) ?? 0);
      const present = a.stems.filter((s) => df.get(s)! > 0);
      const byRarity = [...present].sort((x, y) => df.get(x)! - df.get(y)!);
      let rare = byRarity.filter((s) => df.get(s)! <= chunks * 0.05);
      if (rare.length === 0) rare = byRarity.slice(0, 1);
      if (rare.length === 0) return [];
      const common = present.filter((s) => !rare.includes(s));
      const R = `(${rare.map(q).join(' OR ')})`;
      const exprs = common.length
        ? [
            `${scope} AND ${R} AND (${common.map(q).join(' OR ')})`,
            `${scope} AND ${R} NOT (${common.map(q).join(' OR ')})`,
          ]
        : [`${scope} AND ${R}`];
      const found: Array<Record<string, unknown>> = [];
      for (const e of exprs)
        found.push(
          ...(await rows(
            db,
            `select f.r, c.id, c.heading_path, c.text
             from (select rowid as id, bm25(chunks_fts, 0.0, 1.0) as r from chunks_fts where chunks_fts match ? order by r limit 50) f
             cross join chunks c on c.id = f.id where +c.agent_id = ?`,
            [e, agentId],
          )),
        );
      const cand = found.sort((x, y) => Number(x.r) - Number(y.r)).slice(0, 50);
      const [stats] = await rows(
        db,
        'select coalesce(sum(chunks), 0) as n, 1.0 * sum(tokens) / max(sum(chunks), 1) as avg from sources where agent_id = ?',
        [agentId],
      );
      const cs = { chunks: Number(stats!.n), avgLength: Number(stats!.avg), df };
      return cand
        .map((r) => {
          const hp = JSON.parse(String(r.heading_path)) as string[];
          const t = hp.length ? `${hp.join(' / ')}\n${r.text}` : String(r.text);
          return { id: String(r.id), s: scorePassage(a, tokenize(t).map(stem), cs) };
        })
        .filter((p) => p.s.score > 0)
        .sort((x, y) => y.s.score - x.s.score)
        .slice(0, 10);
    });
    const ids = new Set(full.passages.map((p) => p.id));
    if (ids.size) overlap.push(alt.filter((p) => ids.has(p.id)).length / ids.size);
    if (ids.size) overlap2.push(alt2.filter((p) => ids.has(p.id)).length / ids.size);
    if (!warm) {
      relevant[0]! += full.passages.some((p) => p.relevant) ? 1 : 0;
      relevant[1]! += alt.some((p) => p.s.relevant) ? 1 : 0;
      relevant[2]! += alt2.some((p) => p.s.relevant) ? 1 : 0;
    }
    if (warm) for (const k of Object.keys(timers)) timers[k] = [];
  }
  report(`knowledge: 1 agent, ${chunks} chunks, ${N} questions (ms)`);
  const m = [...matched].sort((x, y) => x - y);
  process.stdout.write(
    `  rows matching the OR of a question's terms: p50 ${percentile(m, 50)}, p99 ${percentile(m, 99)} of ${chunks}\n` +
      `  alternative's top 10 ∩ service's top 10: mean ${((overlap.reduce((x, y) => x + y, 0) / overlap.length) * 100).toFixed(1)}%, ` +
      `min ${(Math.min(...overlap) * 100).toFixed(0)}%; candidates p50 ${percentile(
        [...candidates].sort((x, y) => x - y),
        50,
      )}\n` +
      `  alternative 2's top 10 ∩ service's top 10: mean ${((overlap2.reduce((x, y) => x + y, 0) / overlap2.length) * 100).toFixed(1)}%, min ${(Math.min(...overlap2) * 100).toFixed(0)}%\n` +
      `  questions with a relevant passage: service ${relevant[0]}, alternative ${relevant[1]}, alternative 2 ${relevant[2]} of ${N}\n`,
  );
  db.$client.close();
}

// ------------------------------------------------------------------ docs
{
  const db = await openDatabase({ url: `file:${join(dir, 'node/docs.db')}`, schema: {} });
  const store = new DocsStore(db);
  const search = new DocsSearch(store, null, log);
  const chunks = Number((await rows(db, 'select count(*) as n from chunks', []))[0]!.n);
  const docs = Math.ceil(chunks / 10);
  const questions = Array.from({ length: N + 20 }, (_, i) =>
    corpus.question(corpus.topic((i * 104729) % docs)),
  );
  const matched: number[] = [];
  const overlap: number[] = [];
  const overlap2: number[] = [];
  const dfCache = new Map<string, number>();
  for (const [i, text] of questions.entries()) {
    const warm = i < 20;
    const page = await time('DocsSearch.search (whole)', () =>
      search.search({ query: text, filter: null, offset: 0, limit: 5 }),
    );
    const match = await time('  matchExpression (term counts, cached per generation)', () =>
      search.matchExpression(text),
    );
    if (!match) continue;
    await time('  searchBm25: FTS5 OR of kept terms, bm25 top 5 + join', () =>
      store.searchBm25(match, null, 6, 0),
    );
    const n = await time('  rows matching the OR (count only)', () =>
      rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [match]),
    );
    matched.push(Number(n[0]!.n));
    const alt = await time('ALTERNATIVE: rarer terms only (≤ 5% of chunks, else 3 rarest)', async () => {
      const terms = (match.match(/"(?:[^"]|"")+"/g) ?? []).map((t) => t.slice(1, -1).replaceAll('""', '"'));
      const df = new Map<string, number>();
      for (const t of terms) {
        let v = dfCache.get(t);
        if (v === undefined) {
          v = Number(
            (await rows(db, 'select count(*) as n from chunks_fts where chunks_fts match ?', [q(t)]))[0]!.n,
          );
          dfCache.set(t, v);
        }
        df.set(t, v);
      }
      const byRarity = [...terms].sort((x, y) => df.get(x)! - df.get(y)!);
      let pick = byRarity.filter((t) => df.get(t)! > 0 && df.get(t)! <= chunks * 0.05);
      if (pick.length === 0) pick = byRarity.filter((t) => df.get(t)! > 0).slice(0, 3);
      return pick.length ? store.searchBm25(pick.map(q).join(' OR '), null, 6, 0) : [];
    });
    const alt2 = await time('ALTERNATIVE 2: rows with a rarer term, bm25 of all', async () => {
      const terms = (match.match(/"(?:[^"]|"")+"/g) ?? []).map((t) => t.slice(1, -1).replaceAll('""', '"'));
      const df = (t: string) => dfCache.get(t) ?? 0;
      const present = terms.filter((t) => df(t) > 0);
      const byRarity = [...present].sort((x, y) => df(x) - df(y));
      let rare = byRarity.filter((t) => df(t) <= chunks * 0.05);
      if (rare.length === 0) rare = byRarity.slice(0, 1);
      if (rare.length === 0) return [];
      const common = present.filter((t) => !rare.includes(t));
      const R = `(${rare.map(q).join(' OR ')})`;
      const exprs = common.length
        ? [`${R} AND (${common.map(q).join(' OR ')})`, `${R} NOT (${common.map(q).join(' OR ')})`]
        : [R];
      const hits = [];
      for (const e of exprs) hits.push(...(await store.searchBm25(e, null, 6, 0)));
      return hits.sort((x, y) => y.score - x.score).slice(0, 6);
    });
    const ids = new Set(page.hits.map((h) => h.chunkId));
    if (ids.size) overlap.push(alt.slice(0, 5).filter((h) => ids.has(h.chunkId)).length / ids.size);
    if (ids.size) overlap2.push(alt2.slice(0, 5).filter((h) => ids.has(h.chunkId)).length / ids.size);
    if (warm) for (const k of Object.keys(timers)) timers[k] = [];
  }
  report(`docs: ${chunks} chunks, ${N} questions (ms)`);
  const m = [...matched].sort((x, y) => x - y);
  process.stdout.write(
    `  rows matching the OR of the kept terms: p50 ${percentile(m, 50)}, p99 ${percentile(m, 99)} of ${chunks}\n` +
      `  alternative's top 5 ∩ service's top 5: mean ${((overlap.reduce((x, y) => x + y, 0) / overlap.length) * 100).toFixed(1)}%, min ${(Math.min(...overlap) * 100).toFixed(0)}%\n` +
      `  alternative 2's top 5 ∩ service's top 5: mean ${((overlap2.reduce((x, y) => x + y, 0) / overlap2.length) * 100).toFixed(1)}%, min ${(Math.min(...overlap2) * 100).toFixed(0)}%\n`,
  );
  db.$client.close();
}
