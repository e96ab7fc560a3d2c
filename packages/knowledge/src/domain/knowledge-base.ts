import { randomUUID } from 'node:crypto';
import type { Embedder } from '@lore/kit';
import {
  type Database,
  insertRows,
  type Logger,
  notFound,
  type Outbox,
  type RowValue,
  type Transaction,
} from '@lore/kit';
import {
  type KnowledgeSharing,
  KnowledgeSourceAdded,
  KnowledgeSourceRemoved,
  type KnowledgeSourceSummary,
  type VerifiedAgent,
} from '@lore/schema';
import {
  bm25Idf,
  cosineTopK,
  excerpt,
  float32FromBuffer,
  float32ToBuffer,
  ftsPhrase,
  type RankedRow,
  type RankTerm,
  rankQuery,
  rankSplitTerms,
  reciprocalRankFusion,
  rerankBlend,
  splitDocument,
  splitTermsByFrequency,
  type TermSplit,
  keywords as topicKeywords,
} from '@lore/search';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import type { ExtractedDocument } from './ingest.js';
import { type CorpusStats, scoreStemCounts } from './relevance.js';
import {
  type AnalyzedQuery,
  analyzeQuery,
  GENERIC_STEMS,
  GENERIC_WEIGHT,
  indexTerms,
  MAX_QUERY_TERMS,
  stemCounter,
} from './search-terms.js';

const { sources, chunks } = tables;
type Db = Database<typeof tables>;

/** Keywords kept per source (they become the agent's description for peers). */
export const SOURCE_KEYWORDS = 8;
/** Candidates BM25 hands to rescoring (and the vector scan returns), at least. */
const MIN_CANDIDATES = 50;
// Rows per multi-row INSERT: 400 × 8 columns stays well under SQLite's bound-parameter limit.
const INSERT_BATCH = 400;
const VECTOR_CACHE_AGENTS = 64;

export interface AddedSource {
  source: string;
  format: ExtractedDocument['format'];
  chunks: number;
  keywords: string[];
  characters: number;
  pages: number | null;
  replaced: boolean;
  vectors: number;
  sharing: KnowledgeSharing;
  summary: string;
  /** Why the source has no vectors although an embeddings endpoint is configured. */
  embeddingError?: string;
}

export interface FoundPassage {
  id: string;
  source: string;
  chunk: number;
  headingPath: string[];
  text: string;
  excerpt: string;
  score: number;
  relevant: boolean;
}

export interface SearchOutcome {
  query: AnalyzedQuery;
  strategy: 'bm25' | 'hybrid';
  passages: FoundPassage[];
}

interface CandidateRow {
  id: number;
  source: string;
  position: number;
  heading_path: string;
  text: string;
}

/** The agent's token in the FTS index: a column filter on it keeps a search in its chunks. */
export const agentToken = (agentId: string) => `a${agentId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;

const passageText = (headingPath: string[], text: string) =>
  headingPath.length ? `${headingPath.join(' / ')}\n${text}` : text;

/**
 * How a query's stems are split for BM25 candidates (see `splitTermsByFrequency`). The candidates
 * are 50 deep, too deep for the bound that spares the second ranking to hold often, so when no
 * stem is rare only the rarest stands in: two made the slowest searches twice as slow.
 */
const TERM_SPLIT = { fallbackTerms: 1 };
/** Agents whose search statistics stay cached. */
const STATS_CACHE_AGENTS = 64;
/** Stems whose document frequency an agent's cache holds, at most (then it starts over). */
const STATS_CACHE_STEMS = 20_000;

/** What a search is confined to: an agent's chunks, or one source's; their ids are all in lo..hi. */
interface Scope {
  agentId: string;
  sourceId?: string;
  chunks: number;
  lo: number;
  hi: number;
}

/** An agent's BM25 statistics (`df`: the stems met so far), valid for one revision of its chunks. */
interface AgentStats extends CorpusStats {
  rev: string;
  lo: number;
  hi: number;
  df: Map<string, number>;
  /** At least the rows of the whole FTS table (all agents'), whose IDF FTS5's bm25 uses. */
  tableRows: number;
}

/**
 * One row summing an agent's chunks up: count (n), tokens (t), sources (k) and id range. It is a
 * revision of them because chunk ids only grow: adding or removing a source changes k, and
 * replacing one gives its new chunks ids above all others (or, when it has none, lowers n).
 * Also the highest chunk id of all (top): at least as many as the chunks of all agents.
 */
const agentSummary = (agentId: string) => sql`
  select coalesce(sum(chunks), 0) as n, coalesce(sum(tokens), 0) as t, count(*) as k,
         (select min(id) from chunks where agent_id = ${agentId}) as lo,
         (select max(id) from chunks where agent_id = ${agentId}) as hi,
         (select max(id) from chunks) as top
  from sources where agent_id = ${agentId}`;

const revision = (row: Record<string, number | null> | undefined) =>
  ['n', 't', 'k', 'lo', 'hi'].map((c) => row?.[c] ?? '').join(':');

/**
 * Columns d0, d1… counting the agent's chunks that hold each stem: by rowid range when every id
 * in the agent's range is its own (cheap), else by the agent's FTS token.
 */
function stemCounts(stats: AgentStats, token: string, stemList: string[]): SQL {
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

/** Every agent's knowledge sources: chunks, a BM25 index, optional vectors. */
export class KnowledgeBase {
  private readonly vectorCache = new Map<
    string,
    { rev: string; items: Array<{ id: string; vector: Float32Array }> }
  >();
  private readonly statsCache = new Map<string, AgentStats>();

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly embedder: Embedder | null,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get hasVectors(): boolean {
    return this.embedder !== null;
  }

  /** Adds a source, or replaces the caller's source of the same name; publishes KnowledgeSourceAdded. */
  async add(
    agent: VerifiedAgent,
    doc: ExtractedDocument,
    signal?: AbortSignal,
    share: { sharing?: KnowledgeSharing; summary?: string } = {},
  ): Promise<AddedSource> {
    const pieces = await splitDocument(doc.text, {
      format: doc.format === 'markdown' || doc.format === 'html' ? 'markdown' : 'text',
    });
    const kw = topicKeywords(doc.text, SOURCE_KEYWORDS);
    let vectors: Float32Array[] | null = null;
    let embeddingError: string | undefined;
    if (this.embedder && pieces.length) {
      try {
        vectors = await this.embedder.embed(
          pieces.map((p) => passageText(p.headingPath, p.text)),
          signal,
        );
      } catch (err) {
        embeddingError = (err as Error).message;
        this.log.warn(
          { err: embeddingError, source: doc.name },
          'embedding failed; source indexed for keyword search only',
        );
      }
    }
    const token = agentToken(agent.id);
    const terms = pieces.map((p) => indexTerms(passageText(p.headingPath, p.text)));
    const lengths = terms.map(termCount);
    const t = this.now();
    const out = await this.outbox.transaction(async (tx, emit) => {
      const [existing] = await tx
        .select({ id: sources.id, sharing: sources.sharing, summary: sources.summary })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, doc.name)))
        .limit(1);
      // Replacing a source keeps its sharing unless told otherwise: a private file re-added must not turn auto.
      const sharing = share.sharing ?? existing?.sharing ?? 'auto';
      const summary = share.summary ?? existing?.summary ?? '';
      const fields = {
        sharing,
        summary,
        handle: agent.handle,
        tokens: lengths.reduce((n, x) => n + x, 0),
        format: doc.format,
        characters: doc.text.length,
        pages: doc.pages,
        chunks: pieces.length,
        keywords: kw,
        updatedAt: t,
      };
      let sourceId: string;
      if (existing) {
        sourceId = existing.id;
        await deleteChunks(tx, sql`${chunks.sourceId} = ${sourceId}`);
        await tx.update(sources).set(fields).where(eq(sources.id, sourceId));
      } else {
        sourceId = randomUUID();
        await tx
          .insert(sources)
          .values({ id: sourceId, agentId: agent.id, name: doc.name, createdAt: t, ...fields });
      }
      // The ids AUTOINCREMENT would hand out, so the FTS rows can go in without a RETURNING.
      const [top] = await tx.all<{ id: number }>(
        sql`select max(coalesce((select seq from sqlite_sequence where name = 'chunks'), 0), coalesce((select max(id) from chunks), 0)) as id`,
      );
      const firstId = Number(top?.id ?? 0) + 1;
      for (let i = 0; i < pieces.length; i += INSERT_BATCH) {
        const end = Math.min(i + INSERT_BATCH, pieces.length);
        const chunkRows: RowValue[][] = [];
        const ftsRows: RowValue[][] = [];
        for (let j = i; j < end; j++) {
          const p = pieces[j]!;
          const vector = vectors?.[j];
          chunkRows.push([
            firstId + j,
            sourceId,
            agent.id,
            p.index,
            JSON.stringify(p.headingPath),
            p.text,
            lengths[j]!,
            vector ? float32ToBuffer(vector) : null,
          ]);
          ftsRows.push([firstId + j, token, terms[j]!]);
        }
        await insertRows(tx, 'chunks', CHUNK_COLUMNS, chunkRows);
        await insertRows(tx, 'chunks_fts', ['rowid', 'agent', 'terms'], ftsRows);
      }
      emit(KnowledgeSourceAdded, {
        agentId: agent.id,
        handle: agent.handle,
        source: doc.name,
        // Words extracted from a source that is not shared auto never leave this service.
        keywords: sharing === 'auto' ? kw : [],
        chunks: pieces.length,
        sharing,
        summary,
      });
      return { replaced: existing !== undefined, sharing, summary };
    });
    this.vectorCache.delete(agent.id);
    return {
      source: doc.name,
      format: doc.format,
      chunks: pieces.length,
      keywords: kw,
      characters: doc.text.length,
      pages: doc.pages,
      replaced: out.replaced,
      vectors: vectors ? pieces.length : 0,
      sharing: out.sharing,
      summary: out.summary,
      ...(embeddingError ? { embeddingError } : {}),
    };
  }

  async list(agentId: string): Promise<KnowledgeSourceSummary[]> {
    const rows = await this.db
      .select()
      .from(sources)
      .where(eq(sources.agentId, agentId))
      .orderBy(asc(sources.name));
    return rows.map((r) => ({
      name: r.name,
      format: r.format,
      chunks: r.chunks,
      keywords: r.keywords,
      characters: r.characters,
      pages: r.pages,
      sharing: r.sharing,
      summary: r.summary,
      addedAt: new Date(r.createdAt).toISOString(),
      updatedAt: new Date(r.updatedAt).toISOString(),
    }));
  }

  /** Removes one of the agent's sources; 404 (the same for "not yours" as for "no such") otherwise. */
  async remove(agent: VerifiedAgent, name: string): Promise<{ source: string; chunks: number }> {
    const removed = await this.outbox.transaction(async (tx, emit) => {
      const [row] = await tx
        .select({ id: sources.id, chunks: sources.chunks })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, name)))
        .limit(1);
      if (!row) return null;
      await deleteChunks(tx, sql`${chunks.sourceId} = ${row.id}`);
      await tx.delete(sources).where(eq(sources.id, row.id));
      emit(KnowledgeSourceRemoved, { agentId: agent.id, handle: agent.handle, source: name });
      return row.chunks;
    });
    if (removed === null)
      throw notFound(`You have no knowledge source named '${name}'. listKnowledgeSources shows yours.`, {
        source: name,
      });
    this.vectorCache.delete(agent.id);
    return { source: name, chunks: removed };
  }

  /**
   * The agent's best passages for a query: BM25 candidates from the FTS index, rescored with the
   * agent's own statistics (see relevance.ts), fused with the nearest vectors when embeddings
   * are configured.
   */
  async search(
    agentId: string,
    text: string,
    opts: { limit: number; source?: string; signal?: AbortSignal; relevantFirst?: boolean },
  ): Promise<SearchOutcome> {
    const q = analyzeQuery(text);
    const strategy = this.embedder ? 'hybrid' : 'bm25';
    if (!q.match) return { query: q, strategy, passages: [] };
    const k = Math.max(MIN_CANDIDATES, opts.limit * 5);
    const token = agentToken(agentId);
    const nearest = this.nearest(agentId, text, k, opts.signal);
    const stats = await this.corpusStats(agentId, token, q.stems);
    const lexical = await this.lexical(agentId, token, q, stats, k, opts.source);
    const vectorHits = await nearest;

    const byId = new Map<number, CandidateRow>(lexical.map((r) => [r.id, r]));
    const missing = vectorHits.map((h) => Number(h.id)).filter((id) => !byId.has(id));
    for (const r of await this.candidates(agentId, missing, opts.source)) byId.set(r.id, r);

    const scored = new Map<number, FoundPassage>();
    const count = stemCounter(q.stems);
    for (const r of byId.values()) {
      const headingPath = JSON.parse(r.heading_path) as string[];
      const s = scoreStemCounts(q, count(passageText(headingPath, r.text)), stats);
      scored.set(r.id, {
        id: String(r.id),
        source: r.source,
        chunk: r.position,
        headingPath,
        text: r.text,
        excerpt: '',
        score: s.score,
        relevant: s.relevant,
      });
    }
    const lexicalRanked = this.rerank(
      text,
      stats,
      [...lexical.map((r) => scored.get(r.id)!)].filter((p) => p.score > 0).sort((a, b) => b.score - a.score),
    );
    let ranked: FoundPassage[];
    if (vectorHits.length) {
      const vectorRanked = vectorHits
        .map((h) => scored.get(Number(h.id)))
        .filter((p): p is FoundPassage => p !== undefined);
      ranked = reciprocalRankFusion([lexicalRanked, vectorRanked], (p) => p.id).map(({ item, score }) => ({
        ...item,
        score,
      }));
    } else ranked = lexicalRanked;
    // For drafting, a relevant passage must not be pushed out of the top by a vector-only hit.
    if (opts.relevantFirst)
      ranked = [...ranked.filter((p) => p.relevant), ...ranked.filter((p) => !p.relevant)];
    const words = [...q.terms, ...q.stems];
    return {
      query: q,
      strategy,
      passages: ranked.slice(0, opts.limit).map((p) => ({ ...p, excerpt: excerpt(p.text, words) })),
    };
  }

  /**
   * The field-aware second stage the docs search uses too (`rerankBlend`): the source's name
   * stands for the page title and path, the heading path and the text are fields of their own.
   */
  private rerank(text: string, stats: AgentStats, ranked: FoundPassage[]): FoundPassage[] {
    const q = rankQuery(text, MAX_QUERY_TERMS, (s) => (GENERIC_STEMS.has(s) ? GENERIC_WEIGHT : 1));
    const n = Math.max(stats.chunks, 1);
    // Stems the agent's statistics hold get their IDF; expansions it never counted a neutral 1.
    const idf = (t: RankTerm) => {
      const df = t.stems.length === 1 ? stats.df.get(t.stems[0]!) : undefined;
      return df === undefined ? 1 : bm25Idf(n, Math.min(df, n));
    };
    return rerankBlend(
      q,
      ranked,
      (p) => p.score,
      (p) => ({ title: p.source, path: p.source, heading: p.headingPath.join(' '), body: p.text }),
      idf,
    ).map(({ item, score }) => ({ ...item, score }));
  }

  async stats(): Promise<{ sources: number; chunks: number; agents: number }> {
    const [row] = await this.db.all<{ sources: number; chunks: number; agents: number }>(
      sql`select count(*) as sources, coalesce(sum(chunks), 0) as chunks, count(distinct agent_id) as agents from sources`,
    );
    return {
      sources: Number(row?.sources ?? 0),
      chunks: Number(row?.chunks ?? 0),
      agents: Number(row?.agents ?? 0),
    };
  }

  /**
   * The best `k` BM25 candidates among the agent's chunks (or one source's): the chunks holding
   * one of the query's rarer stems, ranked by all of them (see `splitTermsByFrequency`, with
   * the agent's own document frequencies).
   */
  private async lexical(
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
  private async candidates(
    agentId: string,
    ids: number[],
    source: string | undefined,
  ): Promise<CandidateRow[]> {
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

  /**
   * The agent's statistics for BM25: chunk count, mean length, and how many of its chunks hold
   * each query stem. Cached per agent while its revision (`agentSummary`) holds, so a search
   * only counts the stems it has not met yet.
   */
  private async corpusStats(agentId: string, token: string, queryStems: string[]): Promise<AgentStats> {
    const cached = this.statsCache.get(agentId);
    if (cached && cached.df.size > STATS_CACHE_STEMS) cached.df.clear();
    const missing = cached ? queryStems.filter((s) => !cached.df.has(s)) : [];
    const [row] = await this.db.all<Record<string, number | null>>(sql`
      select a.* ${cached && missing.length ? sql`, ${stemCounts(cached, token, missing)}` : sql``}
      from (${agentSummary(agentId)}) a`);
    const rev = revision(row);
    let stats: AgentStats;
    if (cached?.rev === rev) {
      for (const [i, s] of missing.entries()) cached.df.set(s, Number(row?.[`d${i}`] ?? 0));
      stats = cached;
    } else {
      const n = Number(row?.n ?? 0);
      stats = {
        rev,
        chunks: n,
        avgLength: Number(row?.t ?? 0) / Math.max(n, 1),
        lo: Number(row?.lo ?? 0),
        hi: Number(row?.hi ?? 0),
        df: new Map(),
        tableRows: 0,
      };
      if (n > 0 && queryStems.length) {
        const [counts] = await this.db.all<Record<string, number | null>>(
          sql`select ${stemCounts(stats, token, queryStems)}`,
        );
        for (const [i, s] of queryStems.entries()) stats.df.set(s, Number(counts?.[`d${i}`] ?? 0));
      }
    }
    stats.tableRows = Number(row?.top ?? 0);
    this.statsCache.delete(agentId);
    this.statsCache.set(agentId, stats);
    while (this.statsCache.size > STATS_CACHE_AGENTS)
      this.statsCache.delete(this.statsCache.keys().next().value!);
    return stats;
  }

  /** The agent's chunks nearest to the query by cosine, when embeddings are configured. */
  private async nearest(
    agentId: string,
    text: string,
    k: number,
    signal?: AbortSignal,
  ): Promise<Array<{ id: string; score: number }>> {
    if (!this.embedder) return [];
    try {
      const [[query], items] = await Promise.all([
        this.embedder.embed([text], signal),
        this.vectors(agentId),
      ]);
      return query && items.length ? cosineTopK(query, items, k) : [];
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by keywords only');
      return [];
    }
  }

  /** The agent's vectors, cached until its chunks change (see `agentSummary`). */
  private async vectors(agentId: string): Promise<Array<{ id: string; vector: Float32Array }>> {
    const [row] = await this.db.all<Record<string, number | null>>(agentSummary(agentId));
    const key = revision(row);
    const cached = this.vectorCache.get(agentId);
    if (cached?.rev === key) {
      this.vectorCache.delete(agentId);
      this.vectorCache.set(agentId, cached);
      return cached.items;
    }
    const rows = await this.db
      .select({ id: chunks.id, embedding: chunks.embedding })
      .from(chunks)
      .where(and(eq(chunks.agentId, agentId), sql`${chunks.embedding} is not null`));
    const items = rows.map((r) => ({ id: String(r.id), vector: float32FromBuffer(r.embedding!) }));
    this.vectorCache.set(agentId, { rev: key, items });
    while (this.vectorCache.size > VECTOR_CACHE_AGENTS)
      this.vectorCache.delete(this.vectorCache.keys().next().value!);
    return items;
  }
}

/** Terms in an FTS column value (`indexTerms` joins them with single spaces). */
function termCount(terms: string): number {
  if (!terms) return 0;
  let n = 1;
  for (let i = 0; i < terms.length; i++) if (terms.charCodeAt(i) === 0x20) n++;
  return n;
}

const CHUNK_COLUMNS = [
  'id',
  'source_id',
  'agent_id',
  'position',
  'heading_path',
  'text',
  'length',
  'embedding',
];

async function deleteChunks(tx: Transaction, where: SQL): Promise<void> {
  await tx.run(sql`delete from chunks_fts where rowid in (select id from chunks where ${where})`);
  await tx.run(sql`delete from chunks where ${where}`);
}
