import { type Database, type PreparedReads, preparedReads, type RawRow } from '@lore/kit/db';
import {
  ftsPhrase,
  type RankedRow,
  rankSplitTerms,
  splitTermsByFrequency,
  type TermSplit,
} from '@lore/search';
import type * as tables from '../tables.js';
import type { AgentStats } from './agent-caches.js';
import type { AnalyzedQuery } from './search-terms.js';

/**
 * The FTS5 side of knowledge search: which of an agent's chunks a query ranks, and how the
 * ranking is confined to the agent (or one of its sources) cheaply.
 */

type Db = Database<typeof tables>;

export interface CandidateRow {
  id: number;
  source: string;
  position: number;
  heading_path: string;
  text: string;
}

/**
 * How a query's stems are split for BM25 candidates (see `splitTermsByFrequency`). The candidates
 * are 30 deep, too deep for the bound that spares the second ranking to hold often, so when no
 * stem is rare only the rarest stands in: two made the slowest searches twice as slow.
 */
const TERM_SPLIT = { fallbackTerms: 1 };
/** What a search is confined to: an agent's chunks, or one source's; their ids are all in lo..hi. */
interface Scope {
  agentId: string;
  sourceId?: string;
  chunks: number;
  lo: number;
  hi: number;
}

/**
 * One row summing an agent's chunks up: count (n), tokens (t), sources (k) and id range. It is a
 * revision of them because chunk ids only grow: adding or removing a source changes k, and
 * replacing one gives its new chunks ids above all others (or, when it has none, lowers n).
 * Also the highest chunk id of all (top): at least as many as the chunks of all agents.
 * Parameter: the agent's id.
 */
export const AGENT_SUMMARY = `
  select coalesce(sum(chunks), 0) as n, coalesce(sum(tokens), 0) as t, count(*) as k,
         (select min(id) from chunks where agent_id = ?1) as lo,
         (select max(id) from chunks where agent_id = ?1) as hi,
         (select max(id) from chunks) as top
  from sources where agent_id = ?1`;

export const revision = (row: Record<string, unknown> | undefined) =>
  ['n', 't', 'k', 'lo', 'hi'].map((c) => row?.[c] ?? '').join(':');

/**
 * The statements of a search, as fixed SQL text: they run through the kit's prepared reads
 * (`preparedReads`), each prepared once per database and run again, where drizzle and
 * @libsql/client would build and prepare each one afresh on every search.
 */
const BM25 = 'bm25(chunks_fts, 0.0, 1.0)';
const SQL = {
  /** Chunks of the agent's range holding a stem: match, lo, hi. */
  countInRange: 'select count(*) as n from chunks_fts where chunks_fts match ? and rowid between ? and ?',
  /** Chunks holding a stem under the agent's token: match. */
  count: 'select count(*) as n from chunks_fts where chunks_fts match ?',
  /** The best rows of an expression: match, limit. */
  rank: `select rowid as id, ${BM25} as rank from chunks_fts where chunks_fts match ? order by rank, rowid limit ?`,
  /** The best rows of an expression in one source: match, source id, limit. */
  rankSource: `select c.id, ${BM25} as rank from chunks_fts cross join chunks c on c.id = chunks_fts.rowid
    where chunks_fts match ? and c.source_id = ? order by rank, c.id limit ?`,
  /** The best rows of an expression in a rowid range: match, lo, hi, limit. */
  rankRange: `select rowid as id, ${BM25} as rank from chunks_fts
    where chunks_fts match ? and rowid between ? and ? order by rank, rowid limit ?`,
  /** As rankRange, each row marked as the agent's (and the source's, when not null) or not: match, lo, hi, limit, agent, source. */
  rankDense: `select f.id, f.rank, (c.agent_id = ?5 and (?6 is null or c.source_id = ?6)) as mine
    from (select rowid as id, ${BM25} as rank from chunks_fts
          where chunks_fts match ?1 and rowid between ?2 and ?3 order by rank, rowid limit ?4) f
    cross join chunks c on c.id = f.id
    order by f.rank, f.id`,
  /** An agent's source by name, with its id range: agent, name. */
  source: `select s.id, s.chunks as n,
      (select min(id) from chunks where source_id = s.id) as lo,
      (select max(id) from chunks where source_id = s.id) as hi
    from sources s where s.agent_id = ? and s.name = ?`,
  /** The agent's chunks of a JSON array of ids (of the named source, when not null): ids, agent, source. */
  candidates: `select c.id, s.name as source, c.position, c.heading_path, c.text
    from chunks c cross join sources s on s.id = c.source_id
    where c.id in (select value from json_each(?1)) and +c.agent_id = ?2 and (?3 is null or s.name = ?3)`,
} as const;

/**
 * How many of the agent's chunks hold each stem: by rowid range when every id in the agent's
 * range is its own (cheap), else by the agent's FTS token.
 */
export async function stemCounts(
  db: Db,
  stats: AgentStats,
  token: string,
  stemList: readonly string[],
): Promise<number[]> {
  const reads = preparedReads(db);
  const contiguous = stats.chunks > 0 && stats.chunks === stats.hi - stats.lo + 1;
  const out: number[] = [];
  for (const s of stemList) {
    const row = contiguous
      ? await reads.get(SQL.countInRange, [ftsPhrase(s), stats.lo, stats.hi])
      : await reads.get(SQL.count, [`agent:${ftsPhrase(token)} AND ${ftsPhrase(s)}`]);
    out.push(Number(row?.n ?? 0));
  }
  return out;
}

/** Ranks an agent's chunks for a query with FTS5's BM25, confined to the agent or one source. */
export class ScopeRanker {
  private readonly reads: PreparedReads;

  constructor(db: Db) {
    this.reads = preparedReads(db);
  }

  /**
   * The best `k` BM25 candidates among the agent's chunks (or one source's): the chunks holding
   * one of the query's rarer stems, ranked by all of them (see `splitTermsByFrequency`, with
   * the agent's own document frequencies). The best `exactTop` of them are exactly FTS5's best;
   * the rest may miss chunks holding a rare stem and no other (see `rankSplitTerms`).
   */
  async lexical(
    agentId: string,
    token: string,
    q: AnalyzedQuery,
    stats: AgentStats,
    k: number,
    source: string | undefined,
    exactTop = k,
  ): Promise<CandidateRow[]> {
    const split = splitTermsByFrequency(q.stems, (s) => stats.df.get(s) ?? 0, stats.chunks, {
      ...TERM_SPLIT,
      tableRows: stats.tableRows,
    });
    if (!split) return [];
    const scope =
      source === undefined
        ? { agentId, chunks: stats.chunks, lo: stats.lo, hi: stats.hi }
        : await this.sourceScope(agentId, source);
    if (!scope?.chunks) return [];
    const span = scope.hi - scope.lo + 1;
    const ranked =
      (scope.chunks === span ? await this.rankScope(scope, split, k, exactTop, 'range') : null) ??
      (scope.chunks * 2 >= span ? await this.rankScope(scope, split, k, exactTop, 'dense') : null) ??
      (await this.rankScope(scope, split, k, exactTop, 'token', token))!;
    return this.candidates(
      agentId,
      ranked.map((r) => r.id),
      source,
    );
  }

  /**
   * The best `k` chunks of a scope for each expression of the split, merged. How the FTS query
   * is confined to the scope:
   * - 'range': every id in lo..hi is the scope's, so the rowid range alone confines it. The
   *   agent's FTS token is left out: bm25 counts the rows of every phrase of an expression on
   *   every query, and the token is in every one of the agent's rows.
   * - 'dense': at least half of lo..hi is the scope's; the best 2k of the range are ranked and
   *   the scope's kept. null when that leaves fewer than `k` of a ranking that was cut.
   * - 'token': the agent's token confines it (and a join to the source, when there is one).
   */
  private async rankScope(
    scope: Scope,
    split: TermSplit,
    k: number,
    exactTop: number,
    plan: 'range' | 'dense' | 'token',
    token?: string,
  ): Promise<RankedRow[] | null> {
    const depth = plan === 'dense' ? 2 * k : k;
    const rank = async (expr: string): Promise<RankedRow[] | null> => {
      if (plan === 'token')
        return ranked(
          scope.sourceId === undefined
            ? await this.reads.all(SQL.rank, [expr, k])
            : await this.reads.all(SQL.rankSource, [expr, scope.sourceId, k]),
        );
      if (plan === 'range')
        return ranked(await this.reads.all(SQL.rankRange, [expr, scope.lo, scope.hi, depth]));
      const rows = await this.reads.all(SQL.rankDense, [
        expr,
        scope.lo,
        scope.hi,
        depth,
        scope.agentId,
        scope.sourceId ?? null,
      ]);
      const mine = ranked(rows.filter((r) => r.mine));
      return rows.length === depth && mine.length < k ? null : mine.slice(0, k);
    };
    return rankSplitTerms(
      split,
      k,
      rank,
      plan === 'token' ? `agent:${ftsPhrase(token!)}` : undefined,
      exactTop,
    );
  }

  /** One of the agent's sources as a search scope; null when it has none of that name. */
  private async sourceScope(agentId: string, name: string): Promise<Scope | null> {
    const row = await this.reads.get(SQL.source, [agentId, name]);
    if (!row) return null;
    return {
      agentId,
      sourceId: String(row.id),
      chunks: Number(row.n),
      lo: Number(row.lo ?? 0),
      hi: Number(row.hi ?? 0),
    };
  }

  /** The agent's chunks of these ids (of that source, when given), in the ids' order. */
  async candidates(agentId: string, ids: number[], source: string | undefined): Promise<CandidateRow[]> {
    if (!ids.length) return [];
    const rows = (await this.reads.all(SQL.candidates, [
      JSON.stringify(ids),
      agentId,
      source ?? null,
    ])) as unknown as CandidateRow[];
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}

/** Ranked rows as numbers. */
const ranked = (rows: RawRow[]): RankedRow[] => rows.map((r) => ({ id: Number(r.id), rank: Number(r.rank) }));
