import type { Embedder } from '@lore/ingest';
import type { Logger } from '@lore/kit';
import {
  bm25Idf,
  expansionWords,
  fuseRankings,
  groupByPage,
  queryTerms,
  questionWordWeight,
  type RankQuery,
  rankQuery,
  rerankBlend,
  splitTermsByFrequency,
  stemmedTerms,
  stemmedText,
  type TermSplit,
  VectorMatrix,
} from '@lore/search';
import type { SQL } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { ChunkHit, DocsStore } from './store.js';

/** Most query terms sent to FTS5 (the longest win; see `queryTerms`). */
export const MAX_QUERY_TERMS = 16;
/** RRF's k for docs search (see `DocsSearch.fusionK`). */
export const DOCS_FUSION_K = 10;
/** Weight of the meaning ranking against the words ranking (see `DocsSearch.fusionK`). */
export const DOCS_MEANING_WEIGHT = 3;
/**
 * How far (in cosine) the meaning list's best chunk must lead the best chunk of any other page for
 * its page to be served first whatever the words say (see `DocsSearch.meaningLead`).
 */
export const DOCS_MEANING_LEAD = 0.06;
/** Depth of each ranked list fused by RRF; pages past it are not served in hybrid mode. */
export const FUSION_DEPTH = 200;
/**
 * Below this many matches in all, a query's terms are ranked as one OR; a term is only dropped
 * for being common when it also matches at least this many chunks (both are about speed).
 */
export const PRUNE_MIN_MATCHES = 2000;
/**
 * BM25 candidates rescored field-aware (`rerankBlend`): the page served comes from the best of
 * these. Deeper costs FTS5 ranking, hydration and tokenising: 50 made the 100k-chunk bench's
 * median search several times slower, and ranked the evaluation set no better than 20.
 */
export const RERANK_DEPTH = 20;
/** Words a query's synonyms and identifier parts may add to its FTS terms. */
const MAX_EXPANSION_TERMS = 8;

/**
 * The chunk nearest the query by meaning, when its cosine leads the nearest chunk of every other
 * page by at least `lead`; otherwise none. `pageOf` names a chunk's page, undefined for a chunk
 * the search does not serve (outside its filter), which is skipped.
 */
export function clearMeaningLeader(
  nearest: ReadonlyArray<{ id: string; score: number }>,
  pageOf: (id: string) => string | undefined,
  lead: number,
): string | undefined {
  const kept = nearest.filter((r) => pageOf(r.id) !== undefined);
  const top = kept[0];
  if (!top) return undefined;
  const next = kept.find((r) => pageOf(r.id) !== pageOf(top.id));
  // A corpus of one page has nothing to lead: its nearest chunk leads by default.
  return top.score - (next?.score ?? -1) >= lead ? top.id : undefined;
}

/** A query prepared for search: FTS5 terms, the field-aware query, and IDFs. */
interface PreparedQuery {
  split: TermSplit | null;
  rank: RankQuery;
  idf: (text: string) => number;
}

export interface SearchRequest {
  query: string;
  filter: SQL | null;
  offset: number;
  limit: number;
  signal?: AbortSignal;
}

/** A chunk found, with the signals that found it. */
export type FoundHit = ChunkHit & { foundBy: Array<'words' | 'meaning'> };

export interface SearchPage {
  hits: FoundHit[];
  /** More results exist after this page. */
  more: boolean;
  mode: 'bm25' | 'hybrid';
}

/**
 * Chunk search: FTS5 BM25 (stop words dropped, at most `MAX_QUERY_TERMS` terms, stemmed with
 * @lore/search's stemmer as the index is; on a large corpus, the chunks holding one of the query's rarer terms, see
 * `rankingTerms`) and, when an embeddings endpoint is configured, cosine similarity over the
 * chunk vectors, fused by reciprocal rank fusion. Without vectors, pages come straight from SQL.
 */
export class DocsSearch {
  private cache: { generation: string; vectors: VectorMatrix } | undefined;
  private stats: { generation: string; chunks: number; df: LRUCache<string, number> } | undefined;
  private loading: Promise<VectorMatrix> | undefined;

  /** Depth of the meaning list fused (`FUSION_DEPTH` unless an evaluation asks otherwise). */
  semanticDepth = FUSION_DEPTH;
  /**
   * RRF's k (see `fuseRankings`) and how much the meaning list counts against the words list.
   * Chosen on the tuning half of the retrieval evaluation (k 10, 30, 60 × meaning depth 20, 50,
   * 200 × weight 0.5, 1, 1.5, all-MiniLM-L6-v2): k 10 with weight 1.5 ranked the tuning half
   * 0.796 / 0.939 (recall@1 / @5) against 0.735 / 0.918 for k 60 with equal weights, and the
   * held-out half 0.714 / 0.980 against 0.694 / 0.959. The depth made no difference. With the
   * int8 model (k 5, 10, 20 × weight 1, 1.5, 2, 3 × lead 0–0.1) weight 3 ranked the tuning half 40
   * first of 49 against 39 for 1.5 (47 in the first five either way), and the held-out half 38
   * against 36 first, 47 against 48 in the first five.
   */
  fusionK = DOCS_FUSION_K;
  meaningWeight = DOCS_MEANING_WEIGHT;
  /**
   * A clear winner by meaning comes first: when the nearest chunk's cosine leads the nearest chunk
   * of every other page by this much, that chunk opens the page of results. Rank fusion reads only
   * ranks, so a page the model singles out loses to one the words rank first on shared common
   * words ("store a session id…" drew the request-id middleware over the cookie helper). Chosen on
   * the tuning half of the retrieval evaluation (leads 0.02–0.1): 0.06 and 0.08 ranked it 40 first
   * of 49 against 39, and the held-out half 37 against 35 (BENCHMARKS.md). `Infinity`: rank fusion alone.
   */
  meaningLead = DOCS_MEANING_LEAD;
  /** Rank by meaning alone (evaluations: the semantic-only ranking beside the fused one). */
  meaningOnly = false;
  /** Called as a search starts (the service checks whether chunks await vectors). */
  onSearch: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: DocsStore,
    private readonly embedder: Embedder | null,
    private readonly log?: Logger,
  ) {}

  /**
   * Vectors just stored by this process: added to the cached index in place (instead of a
   * reload of every vector) when the cache is of the generation they were written on.
   */
  vectorsAdded(rows: Array<{ id: number; vector: Float32Array }>, before: string, after: string): void {
    const c = this.cache;
    if (!c?.generation.endsWith(`/${before}`)) return;
    for (const r of rows) {
      // A corpus read before it had any vector holds an empty matrix of no model's dimension.
      if (c.vectors.size === 0 && c.vectors.dimensions !== r.vector.length)
        c.vectors = new VectorMatrix(r.vector.length, rows.length);
      c.vectors.add(r.id, r.vector);
    }
    c.generation = `${c.generation.slice(0, -before.length - 1)}/${after}`;
  }

  async search(req: SearchRequest): Promise<SearchPage> {
    await this.onSearch?.().catch(() => {});
    const prepared = await this.prepare(req.query);
    const terms = prepared.split;
    const queryVector = this.embedder ? await this.embedQuery(req.query, req.signal) : null;
    if (!queryVector) {
      if (!terms) return { hits: [], more: false, mode: 'bm25' };
      const depth = Math.max(RERANK_DEPTH, req.offset + req.limit + 1);
      const rows = await this.store.searchBm25(terms, req.filter, depth, 0);
      const ranked = [
        ...this.byPage(this.rerank(prepared, rows.slice(0, RERANK_DEPTH))),
        ...rows.slice(RERANK_DEPTH),
      ];
      const page = ranked
        .slice(req.offset, req.offset + req.limit)
        .map((h): FoundHit => ({ ...h, foundBy: ['words'] }));
      return { hits: page, more: ranked.length > req.offset + req.limit, mode: 'bm25' };
    }
    // The keyword list is the keyword-only ranking (BM25 scores kept for the field-aware blend,
    // chunks grouped by page), so vectors add to it rather than start from a weaker one.
    const lexicalHits =
      terms && !this.meaningOnly ? await this.store.searchBm25(terms, req.filter, FUSION_DEPTH, 0) : [];
    const lexical = [
      ...this.byPage(this.rerank(prepared, lexicalHits.slice(0, RERANK_DEPTH))),
      ...lexicalHits.slice(RERANK_DEPTH),
    ];
    const vectors = await this.vectors();
    // Over-fetch when filtering: candidates outside the filter are dropped on hydration.
    const nearest = vectors
      .nearest(queryVector, req.filter ? FUSION_DEPTH * 4 : FUSION_DEPTH)
      .map((r) => ({ id: String(r.id), score: r.similarity }));
    const semantic = nearest.map((r) => Number(r.id));
    const hydrated = new Map(lexical.map((h) => [h.chunkId, h]));
    const unseen = semantic.filter((id) => !hydrated.has(id));
    for (const h of await this.store.chunksById(unseen, req.filter)) hydrated.set(h.chunkId, h);
    const lead = this.meaningOnly
      ? undefined
      : clearMeaningLeader(nearest, (id) => hydrated.get(Number(id))?.document, this.meaningLead);
    const fused = fuseRankings(
      [
        { signal: 'words', ids: lexical.map((h) => String(h.chunkId)) },
        {
          signal: 'meaning',
          ids: semantic
            .filter((id) => hydrated.has(id))
            .slice(0, this.semanticDepth)
            .map(String),
          weight: this.meaningWeight,
        },
      ],
      this.fusionK,
    );
    if (lead !== undefined) {
      const at = fused.findIndex((f) => f.id === lead);
      if (at > 0) fused.unshift(...fused.splice(at, 1));
    }
    const page = fused.slice(req.offset, req.offset + req.limit).map(
      ({ id, score, signals }): FoundHit => ({
        ...hydrated.get(Number(id))!,
        score,
        foundBy: signals as FoundHit['foundBy'],
      }),
    );
    return { hits: page, more: fused.length > req.offset + req.limit, mode: 'hybrid' };
  }

  /** Chunks of one page together, pages ordered by their best chunks (see `groupByPage`). */
  private byPage(hits: ChunkHit[]): ChunkHit[] {
    return groupByPage(
      hits,
      (h) => h.document,
      (h) => h.score,
    );
  }

  /** BM25 candidates rescored field-aware: title, URL path, heading path and text weighted apart, phrases rewarded. */
  private rerank(q: PreparedQuery, hits: ChunkHit[]): ChunkHit[] {
    return rerankBlend(
      q.rank,
      hits,
      (h) => h.score,
      (h) => ({ title: h.title, path: h.uri, heading: h.headingPath.join(' '), body: h.text }),
      (t) => q.idf(t.text),
    ).map(({ item, score }) => ({ ...item, score }));
  }

  /**
   * The query's FTS5 terms (its words, then its synonyms' and identifiers' parts, as the stems
   * the index holds), its ranking query and their IDFs.
   */
  async prepare(query: string): Promise<PreparedQuery> {
    const words = queryTerms(query, MAX_QUERY_TERMS);
    const extra = expansionWords(query).slice(0, MAX_EXPANSION_TERMS);
    const terms = stemmedTerms([...words, ...extra.filter((w) => !words.includes(w))]);
    const rank = rankQuery(query, MAX_QUERY_TERMS, questionWordWeight);
    // A ranking term's IDF is its stems' (the index holds nothing else). `terms` are stems already:
    // stemming a stem again can give another word (the stemmer is not idempotent), which would
    // leave the query's own terms uncounted and make a common term look rare to the split.
    const counted = [...new Set([...terms, ...stemmedTerms(rank.terms.map((t) => t.text))])];
    const { df, chunks } = await this.counts(counted);
    const idf = (t: string) => bm25Idf(Math.max(chunks, 1), Math.min(df.get(stemmedText(t)) ?? 0, chunks));
    return { split: this.splitTerms(terms, df, chunks), rank, idf };
  }

  /**
   * The query's terms for BM25 (stop words dropped, at most `MAX_QUERY_TERMS`), split by how
   * many chunks hold them (`splitTermsByFrequency`): terms found in more than half of the
   * chunks (and in at least `PRUNE_MIN_MATCHES`) are dropped — BM25 gives them no weight while
   * they are what makes a search of a large corpus slow — and the rest ranked as the chunks
   * holding a rarer term, scored by every term. Term counts are cached per corpus generation.
   * `null` when no term is in any chunk.
   */
  async rankingTerms(query: string): Promise<TermSplit | null> {
    return (await this.prepare(query)).split;
  }

  private splitTerms(terms: string[], df: LRUCache<string, number>, chunks: number): TermSplit | null {
    // One term needs no counting: its rows are the candidates either way.
    if (terms.length <= 1) return terms.length ? { rare: terms, common: [], rareBound: Infinity } : null;
    return splitTermsByFrequency(terms, (t) => df.get(t) ?? 0, chunks, { minMatches: PRUNE_MIN_MATCHES });
  }

  /** How many chunks hold each term (a word or a phrase), cached per corpus generation. */
  private async counts(terms: string[]): Promise<{ df: LRUCache<string, number>; chunks: number }> {
    const generation = await this.store.generation();
    if (this.stats?.generation !== generation) {
      // The most recently asked terms of this generation (a corpus has more words than are worth keeping).
      this.stats = { generation, chunks: await this.store.chunkCount(), df: new LRUCache({ max: 20_000 }) };
    }
    const { df, chunks } = this.stats;
    const unknown = terms.filter((t) => df.get(t) === undefined);
    if (unknown.length) for (const [t, n] of await this.store.termCounts(unknown)) df.set(t, n);
    return { df, chunks };
  }

  private async embedQuery(query: string, signal?: AbortSignal): Promise<Float32Array | null> {
    try {
      const [v] = await this.embedder!.embed([query], signal);
      return v ?? null;
    } catch (err) {
      this.log?.warn({ err: (err as Error).message }, 'query embedding failed; searching by keywords only');
      return null;
    }
  }

  /** The chunk vectors of the embedder's model, cached per corpus and vector generation. */
  private async vectors(): Promise<VectorMatrix> {
    const generation = `${await this.store.generation()}/${await this.store.vectorGeneration()}`;
    if (this.cache?.generation === generation) return this.cache.vectors;
    this.loading ??= this.store
      .vectors(this.embedder!.model)
      .then((rows) => {
        // One model's vectors share a dimension; a row of another is left out (never compared).
        const matrix = new VectorMatrix(rows[0]?.vector.length ?? 1, rows.length);
        for (const r of rows) matrix.add(Number(r.id), r.vector);
        return matrix;
      })
      .finally(() => {
        this.loading = undefined;
      });
    const vectors = await this.loading;
    this.cache = { generation, vectors };
    return vectors;
  }
}
