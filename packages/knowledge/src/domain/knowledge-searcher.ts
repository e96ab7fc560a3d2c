import { type Embedder, EmbedderUnavailableError } from '@lore/embed';
import type { Logger } from '@lore/kit';
import { type Database, preparedReads } from '@lore/kit/db';
import {
  bm25Idf,
  excerpt,
  fuseRankings,
  questionWordWeight,
  type RankTerm,
  rankQuery,
  rerankBlend,
} from '@lore/search';
import { sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type * as tables from '../tables.js';
import { type AgentCaches, type AgentStats, type AgentVectors, STATS_CACHE_STEMS } from './agent-caches.js';
import { AGENT_SUMMARY, type CandidateRow, revision, ScopeRanker, stemCounts } from './agent-scope.js';
import { withoutFiller } from './filler.js';
import { agentToken, type FoundPassage, passageText, type SearchOutcome } from './knowledge-types.js';
import {
  agentVectors,
  hasVectors,
  nearestByDatabase,
  nearestInMemory,
  similarityOf,
} from './knowledge-vectors.js';
import { judgeCandidates, MEANING_SCALES, type MeaningScale, scoreStemCounts } from './relevance.js';
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
/**
 * Most chunks of one agent whose vectors the database compares (`vector_distance_cos`, an exact
 * scan through the agent index); an agent with more is searched in a copy of its vectors kept in
 * the process (`cosineTopK`). Measured here (`pnpm bench:meaning`, BENCHMARKS.md, "Meaning in the
 * database", load average 8–11): the database's scan took 2.2 s p50 at 20,000 vectors (some
 * 110 µs a vector) where the process's took 0.4 s at 100,000 (4 µs); at 500 the database's
 * search was 28 ms p50. libSQL's vector index (DiskANN) cost 43 ms and 10 kB per row inserted,
 * more than the background embedding itself, and was left out.
 */
export const DB_SCAN_MAX = 2_000;
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
    /** See `DB_SCAN_MAX` (tests lower it). */
    private readonly dbScanMax = DB_SCAN_MAX,
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
    const queryVector = await meaning;
    // Up to DB_SCAN_MAX chunks the database compares the vectors; above, a copy the process keeps.
    const inMemory = queryVector && stats.chunks > this.dbScanMax ? await this.vectors(agentId) : undefined;
    const vectorHits = !queryVector
      ? []
      : inMemory
        ? this.nearestInMemory(inMemory, queryVector, k, opts.source)
        : await this.nearest(agentId, queryVector, k, opts.source);

    const byId = new Map<number, CandidateRow>(lexical.map((r) => [r.id, r]));
    const missing = vectorHits.map((h) => h.id).filter((id) => !byId.has(id));
    for (const r of await this.ranker.candidates(agentId, missing, opts.source)) byId.set(r.id, r);
    // Each candidate's similarity: the nearest ones came with theirs, the lexical ones are asked for.
    const similarities = new Map<number, number>(vectorHits.map((h) => [h.id, h.similarity]));
    if (queryVector) {
      const unknown = [...byId.keys()].filter((id) => !similarities.has(id));
      const known = inMemory
        ? new Map(
            unknown.flatMap((id) => {
              const sim = inMemory.matrix.similarity(id, queryVector);
              return sim === undefined ? [] : [[id, sim] as const];
            }),
          )
        : await this.similarityOf(agentId, queryVector, unknown);
      for (const [id, sim] of known) similarities.set(id, sim);
    }

    const scored = new Map<number, FoundPassage>();
    const evidence = new Map<number, number>();
    const count = stemCounter(q.stems);
    const rows = [...byId.values()];
    const candidates = rows.map((r) => {
      const headingPath = JSON.parse(r.heading_path) as string[];
      // A chunk whose vector is not computed yet is judged by its words alone.
      const similarity = similarities.get(r.id);
      const lexical = scoreStemCounts(q, count(passageText(headingPath, r.text)), stats);
      return { row: r, headingPath, lexical, ...(similarity !== undefined ? { similarity } : {}) };
    });
    const judged = judgeCandidates(candidates, this.scale);
    candidates.forEach(({ row: r, headingPath, lexical: s, similarity }, i) => {
      const j = judged[i]!;
      if (j.evidence !== undefined) evidence.set(r.id, j.evidence);
      scored.set(r.id, {
        id: String(r.id),
        source: r.source,
        chunk: r.position,
        headingPath,
        text: r.text,
        excerpt: '',
        score: s.score,
        relevant: j.relevant,
        foundBy: [],
        ...(similarity !== undefined ? { similarity } : {}),
        coverage: s.coverage,
      });
    });
    const lexicalRanked = this.rerank(
      asked,
      stats,
      [...lexical.map((r) => scored.get(r.id)!)].filter((p) => p.score > 0).sort((a, b) => b.score - a.score),
    );
    // Words and meaning fused by rank; each hit says which of the two found it.
    const fused = fuseRankings([
      { signal: 'words', ids: lexicalRanked.map((p) => p.id) },
      { signal: 'meaning', ids: vectorHits.map((h) => String(h.id)) },
    ]);
    const lexicalScore = new Map(lexicalRanked.map((p) => [p.id, p.score]));
    let ranked: FoundPassage[] = fused.flatMap(({ id, score, signals }) => {
      const p = scored.get(Number(id));
      if (!p) return [];
      // Without vectors the ranking is the lexical one, and its scores are kept.
      return [
        {
          ...p,
          score: vectorHits.length ? score : (lexicalScore.get(id) ?? score),
          foundBy: signals as FoundPassage['foundBy'],
        },
      ];
    });
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
   * The question's vector, when there is an embedder and the agent has vectors of its model;
   * none when embedding the question fails or takes longer than `QUERY_EMBED_MS` (the search is
   * then by words alone).
   */
  private async meaning(
    agentId: string,
    asked: string,
    signal?: AbortSignal,
  ): Promise<Float32Array | undefined> {
    if (!this.embedder) return undefined;
    try {
      // Without vectors of its own the agent's search needs no question vector either.
      if (!(await this.hasVectors(agentId))) return undefined;
      return await this.queryVector(asked, signal);
    } catch (err) {
      // An unavailable local model said so once already; the search is by words.
      if (!(err instanceof EmbedderUnavailableError))
        this.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by keywords only');
      return undefined;
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

  private nearestInMemory(
    vectors: AgentVectors,
    query: Float32Array,
    k: number,
    source: string | undefined,
  ): Array<{ id: number; similarity: number }> {
    return nearestInMemory(vectors, query, k, source);
  }

  private async vectors(agentId: string): Promise<AgentVectors> {
    return agentVectors(this.db, this.caches, this.embedder!.model, agentId, await this.summary(agentId));
  }

  private hasVectors(agentId: string): Promise<boolean> {
    return hasVectors(this.db, agentId, this.embedder!.model);
  }

  private nearest(agentId: string, query: Float32Array, k: number, source: string | undefined) {
    return nearestByDatabase(this.db, this.embedder!.model, agentId, query, k, source);
  }

  private similarityOf(agentId: string, query: Float32Array, ids: number[]): Promise<Map<number, number>> {
    return similarityOf(this.db, this.embedder!.model, agentId, query, ids);
  }
}
