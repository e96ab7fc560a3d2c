import type { Database } from '@lore/kit';
import {
  ftsPhrase,
  type RankedRow,
  rankSplitTerms,
  splitTermsByFrequency,
  type TermSplit,
} from '@lore/search';
import { type SQL, sql } from 'drizzle-orm';
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
 * are 50 deep, too deep for the bound that spares the second ranking to hold often, so when no
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
 */
export const agentSummary = (agentId: string) => sql`
  select coalesce(sum(chunks), 0) as n, coalesce(sum(tokens), 0) as t, count(*) as k,
         (select min(id) from chunks where agent_id = ${agentId}) as lo,
         (select max(id) from chunks where agent_id = ${agentId}) as hi,
         (select max(id) from chunks) as top
  from sources where agent_id = ${agentId}`;

export const revision = (row: Record<string, number | null> | undefined) =>
  ['n', 't', 'k', 'lo', 'hi'].map((c) => row?.[c] ?? '').join(':');

/**
 * Columns d0, d1… counting the agent's chunks that hold each stem: by rowid range when every id
 * in the agent's range is its own (cheap), else by the agent's FTS token.
 */
export function stemCounts(stats: AgentStats, token: string, stemList: string[]): SQL {
  const contiguous = stats.chunks > 0 && stats.chunks === stats.hi - stats.lo + 1;
  return sql.join(
    stemList.map((s, i) =>
      contiguous
        ? sql`(select count(*) from chunks_fts where chunks_fts match ${ftsPhrase(s)}
            and rowid between ${stats.lo} and ${stats.hi}) as ${sql.raw(`d${i}`)}`
        : sql`(select count(*) from chunks_fts where chunks_fts match ${`agent:${ftsPhrase(token)} AND ${ftsPhrase(s)}`}) as ${sql.raw(`d${i}`)}`,
    ),
    sql`, `,
  );
}

/** Ranks an agent's chunks for a query with FTS5's BM25, confined to the agent or one source. */
export class ScopeRanker {
  constructor(private readonly db: Db) {}

  /**
   * The best `k` BM25 candidates among the agent's chunks (or one source's): the chunks holding
   * one of the query's rarer stems, ranked by all of them (see `splitTermsByFrequency`, with
   * the agent's own document frequencies).
   */
  async lexical(
    agentId: string,
    token: string,
    q: AnalyzedQuery,
    stats: AgentStats,
    k: number,
    source: string | undefined,
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
      (scope.chunks === span ? await this.rankScope(scope, split, k, 'range') : null) ??
      (scope.chunks * 2 >= span ? await this.rankScope(scope, split, k, 'dense') : null) ??
      (await this.rankScope(scope, split, k, 'token', token))!;
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
    plan: 'range' | 'dense' | 'token',
    token?: string,
  ): Promise<RankedRow[] | null> {
    const depth = plan === 'dense' ? 2 * k : k;
    const bm25 = sql`bm25(chunks_fts, 0.0, 1.0)`;
    const rank = async (expr: string): Promise<RankedRow[] | null> => {
      if (plan === 'token')
        return this.db.all<RankedRow>(
          scope.sourceId === undefined
            ? sql`select rowid as id, ${bm25} as rank from chunks_fts
                where chunks_fts match ${expr} order by rank, rowid limit ${k}`
            : sql`select c.id, ${bm25} as rank from chunks_fts cross join chunks c on c.id = chunks_fts.rowid
                where chunks_fts match ${expr} and c.source_id = ${scope.sourceId}
                order by rank, c.id limit ${k}`,
        );
      const inRange = sql`select rowid as id, ${bm25} as rank from chunks_fts
        where chunks_fts match ${expr} and rowid between ${scope.lo} and ${scope.hi}
        order by rank, rowid limit ${depth}`;
      if (plan === 'range') return this.db.all<RankedRow>(inRange);
      const rows = await this.db.all<RankedRow & { mine: number }>(sql`
        select f.id, f.rank, (c.agent_id = ${scope.agentId} ${
          scope.sourceId === undefined ? sql`` : sql`and c.source_id = ${scope.sourceId}`
        }) as mine
        from (${inRange}) f cross join chunks c on c.id = f.id
        order by f.rank, f.id`);
      const mine = rows.filter((r) => r.mine);
      return rows.length === depth && mine.length < k ? null : mine.slice(0, k);
    };
    return rankSplitTerms(split, k, rank, plan === 'token' ? `agent:${ftsPhrase(token!)}` : undefined);
  }

  /** One of the agent's sources as a search scope; null when it has none of that name. */
  private async sourceScope(agentId: string, name: string): Promise<Scope | null> {
    const [row] = await this.db.all<{ id: string; n: number; lo: number | null; hi: number | null }>(sql`
      select s.id, s.chunks as n,
             (select min(id) from chunks where source_id = s.id) as lo,
             (select max(id) from chunks where source_id = s.id) as hi
      from sources s where s.agent_id = ${agentId} and s.name = ${name}`);
    if (!row) return null;
    return {
      agentId,
      sourceId: row.id,
      chunks: Number(row.n),
      lo: Number(row.lo ?? 0),
      hi: Number(row.hi ?? 0),
    };
  }

  /** The agent's chunks of these ids (of that source, when given), in the ids' order. */
  async candidates(agentId: string, ids: number[], source: string | undefined): Promise<CandidateRow[]> {
    if (!ids.length) return [];
    const rows = await this.db.all<CandidateRow>(sql`
      select c.id, s.name as source, c.position, c.heading_path, c.text
      from chunks c cross join sources s on s.id = c.source_id
      where c.id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) and +c.agent_id = ${agentId} ${source === undefined ? sql`` : sql`and s.name = ${source}`}`);
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}
