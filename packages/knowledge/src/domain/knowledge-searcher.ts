import { type Embedder, EmbedderUnavailableError } from '@lore/embed';
import { type Database, type Logger, preparedReads } from '@lore/kit';
import {
  bm25Idf,
  cosine,
  cosineTopK,
  excerpt,
  float32FromBuffer,
  questionWordWeight,
  type RankTerm,
  rankQuery,
  reciprocalRankFusion,
  rerankBlend,
} from '@lore/search';
import { and, eq, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type * as tables from '../tables.js';
import { chunks } from '../tables.js';
import {
  type AgentCaches,
  type AgentStats,
  type AgentVectors,
  STATS_CACHE_STEMS,
  VECTORS_FRESH_MS,
} from './agent-caches.js';
import { AGENT_SUMMARY, type CandidateRow, revision, ScopeRanker, stemCounts } from './agent-scope.js';
import { withoutFiller } from './filler.js';
import { agentToken, type FoundPassage, passageText, type SearchOutcome } from './knowledge-types.js';
import {
  isRelevant,
  MEANING_SCALES,
  type MeaningScale,
  meaningEvidence,
  scoreStemCounts,
} from './relevance.js';
import { analyzeQuery, MAX_QUERY_TERMS, stemCounter } from './search-terms.js';

type Db = Database<typeof tables>;

/**
 * Candidates BM25 hands to rescoring (and the vector scan returns): at least this many, and
 * `CANDIDATES_PER_RESULT` per result asked for. 50 (5 per result) scored more FTS rows (a deeper
 * cut seldom clears the bound that spares the second ranking, see `rankSplitTerms`) and rescored
 * more passages; on the 100k-chunk bench's questions 30 gave the same first passage for all of
 * them and 99.7 % of the same top 10.
 */
const MIN_CANDIDATES = 30;
const CANDIDATES_PER_RESULT = 3;

/**
 * Longest a search waits for its question's vector (the local model loading, or busy with a
 * batch of passages): past it the search answers by words alone.
 */
export const QUERY_EMBED_MS = 10_000;
/** Questions whose vectors are kept: a broadcast asks every recipient's knowledge the same one. */
const QUERY_VECTORS = 256;

/** Searches an agent's knowledge: BM25 candidates rescored with its own statistics, fused with vectors. */
export class KnowledgeSearcher {
  private readonly ranker: ScopeRanker;
  private readonly queryVectors = new LRUCache<string, Float32Array>({ max: QUERY_VECTORS });
  /** How the embedder's similarities read as relevance (none: relevance by words alone). */
  private readonly scale: MeaningScale | undefined;

  constructor(
    private readonly db: Db,
    private readonly embedder: Embedder | null,
    private readonly caches: AgentCaches,
    private readonly log: Logger,
  ) {
    this.ranker = new ScopeRanker(db);
    this.scale = embedder ? MEANING_SCALES[embedder.model] : undefined;
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
    // Greetings, politeness and the asker's name decide nothing: neither words nor meaning see them.
    const asked = withoutFiller(text);
    const q = analyzeQuery(asked);
    const strategy = this.embedder ? 'hybrid' : 'bm25';
    if (!q.match && !this.embedder) return { query: q, strategy, passages: [] };
    const k = Math.max(MIN_CANDIDATES, opts.limit * CANDIDATES_PER_RESULT);
    const token = agentToken(agentId);
    const meaning = this.meaning(agentId, asked, opts.signal);
    const stats = await this.corpusStats(agentId, token, q.stems);
    // The page itself exactly FTS5's best; the candidates below it only feed the rescoring.
    const lexical = q.match
      ? await this.ranker.lexical(agentId, token, q, stats, k, opts.source, opts.limit)
      : [];
    const { query: queryVector, vectors } = await meaning;
    const vectorHits = queryVector && vectors.items.length ? cosineTopK(queryVector, vectors.items, k) : [];

    const byId = new Map<number, CandidateRow>(lexical.map((r) => [r.id, r]));
    const missing = vectorHits.map((h) => Number(h.id)).filter((id) => !byId.has(id));
    for (const r of await this.ranker.candidates(agentId, missing, opts.source)) byId.set(r.id, r);

    const scored = new Map<number, FoundPassage>();
    const evidence = new Map<number, number>();
    const count = stemCounter(q.stems);
    for (const r of byId.values()) {
      const headingPath = JSON.parse(r.heading_path) as string[];
      const s = scoreStemCounts(q, count(passageText(headingPath, r.text)), stats);
      // A chunk whose vector is not computed yet is judged by its words alone.
      const vector = queryVector ? vectors.byId.get(String(r.id)) : undefined;
      const similarity = vector ? cosine(queryVector!, vector) : undefined;
      if (similarity !== undefined && this.scale)
        evidence.set(r.id, meaningEvidence(similarity, s, this.scale));
      scored.set(r.id, {
        id: String(r.id),
        source: r.source,
        chunk: r.position,
        headingPath,
        text: r.text,
        excerpt: '',
        score: s.score,
        relevant: isRelevant(s, similarity, this.scale),
      });
    }
    // Relevant by meaning means among the best: well below the best passage is not drafted from.
    if (this.scale && evidence.size) {
      const best = Math.max(...[...evidence].filter(([id]) => scored.get(id)!.relevant).map(([, e]) => e));
      for (const [id, e] of evidence) if (e < best - this.scale.margin) scored.get(id)!.relevant = false;
    }
    const lexicalRanked = this.rerank(
      asked,
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
    // For drafting, a relevant passage must not be pushed out of the top by a vector-only hit;
    // among relevant ones, the strongest evidence of meaning and words first.
    if (opts.relevantFirst) {
      const strength = (p: FoundPassage) => evidence.get(Number(p.id)) ?? Number.NEGATIVE_INFINITY;
      const relevant = ranked.filter((p) => p.relevant);
      if (evidence.size) relevant.sort((a, b) => strength(b) - strength(a));
      ranked = [...relevant, ...ranked.filter((p) => !p.relevant)];
    }
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
    const q = rankQuery(text, MAX_QUERY_TERMS, questionWordWeight);
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
   * The agent's statistics for BM25: chunk count, mean length, and how many of its chunks hold
   * each query stem. Cached per agent while its revision (`agentSummary`) holds, so a search
   * only counts the stems it has not met yet.
   */
  private async corpusStats(agentId: string, token: string, queryStems: string[]): Promise<AgentStats> {
    const cached = this.caches.stats.get(agentId);
    if (cached && cached.df.size > STATS_CACHE_STEMS) cached.df.clear();
    const row = await this.summary(agentId);
    // The epoch moves on when the index is rewritten (see `reindexKnowledge`).
    const rev = `${this.caches.epoch}:${revision(row)}`;
    let stats: AgentStats;
    if (cached?.rev === rev) {
      const missing = queryStems.filter((s) => !cached.df.has(s));
      const counts = await stemCounts(this.db, cached, token, missing);
      for (const [i, s] of missing.entries()) cached.df.set(s, counts[i]!);
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
        const counts = await stemCounts(this.db, stats, token, queryStems);
        for (const [i, s] of queryStems.entries()) stats.df.set(s, counts[i]!);
      }
    }
    stats.tableRows = Number(row?.top ?? 0);
    this.caches.stats.set(agentId, stats);
    return stats;
  }

  /**
   * The agent's summary row (`AGENT_SUMMARY`), read again only when the database changed since
   * (a commit by any connection moves its data version): summing an agent's sources up costs
   * about half a millisecond at 1,000 sources, on every search.
   */
  private async summary(agentId: string): Promise<Record<string, unknown> | undefined> {
    const reads = preparedReads(this.db);
    const version = await reads.dataVersion();
    const cached = this.caches.summaries.get(agentId);
    if (version !== undefined && cached?.version === version) return cached.row;
    const row = await reads.get(AGENT_SUMMARY, [agentId]);
    if (version !== undefined) this.caches.summaries.set(agentId, { version, row });
    return row;
  }

  /**
   * The question's vector and the agent's vectors of the embedder's model, when there is an
   * embedder; none when embedding the question fails or takes longer than `QUERY_EMBED_MS`
   * (the search is then by words alone).
   */
  private async meaning(
    agentId: string,
    asked: string,
    signal?: AbortSignal,
  ): Promise<{ query: Float32Array | undefined; vectors: Pick<AgentVectors, 'items' | 'byId'> }> {
    const none = { query: undefined, vectors: { items: [], byId: new Map<string, Float32Array>() } };
    if (!this.embedder) return none;
    try {
      const vectors = await this.vectors(agentId);
      // Without vectors of its own the agent's search needs no question vector either.
      if (!vectors.items.length) return none;
      return { query: await this.queryVector(asked, signal), vectors };
    } catch (err) {
      // An unavailable local model said so once already; the search is by words.
      if (!(err instanceof EmbedderUnavailableError))
        this.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by keywords only');
      return none;
    }
  }

  private async queryVector(asked: string, signal?: AbortSignal): Promise<Float32Array | undefined> {
    const cached = this.queryVectors.get(asked);
    if (cached) return cached;
    const timeout = AbortSignal.timeout(QUERY_EMBED_MS);
    const [vector] = await this.embedder!.embed(
      [asked],
      signal ? AbortSignal.any([signal, timeout]) : timeout,
    );
    if (vector) this.queryVectors.set(asked, vector);
    return vector;
  }

  /**
   * The agent's vectors of the embedder's model, cached until its chunks change (see
   * `AGENT_SUMMARY`), this process writes vectors for it, or `VECTORS_FRESH_MS` pass (another
   * replica's vectors).
   */
  private async vectors(agentId: string): Promise<AgentVectors> {
    const summary = await this.summary(agentId);
    const rev = `${revision(summary)}:${this.caches.vectorRevision(agentId)}`;
    const cached = this.caches.vectors.get(agentId);
    // Once every chunk has its vector only a change of the chunks makes them stale.
    const complete = cached !== undefined && cached.items.length >= Number(summary?.n ?? 0);
    if (cached?.rev === rev && (complete || performance.now() - cached.at < VECTORS_FRESH_MS)) return cached;
    const rows = await this.db
      .select({ id: chunks.id, embedding: chunks.embedding })
      .from(chunks)
      .where(
        and(
          eq(chunks.agentId, agentId),
          eq(chunks.embeddingModel, this.embedder!.model),
          sql`${chunks.embedding} is not null`,
        ),
      );
    const items = rows.map((r) => ({ id: String(r.id), vector: float32FromBuffer(r.embedding!) }));
    const entry: AgentVectors = {
      rev,
      at: performance.now(),
      items,
      byId: new Map(items.map((i) => [i.id, i.vector])),
    };
    this.caches.vectors.set(agentId, entry);
    return entry;
  }
}
