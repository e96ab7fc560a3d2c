import type { AnalyzedQuery, StemCounts } from './search-terms.js';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Share of the query's (weighted) terms a passage must contain. */
export const MIN_COVERAGE = 0.5;
/** Most distinct specific (non-generic) terms a passage must contain: min(this, how many the query has). */
export const MIN_SPECIFIC_TERMS = 2;
/** BM25 floor, per required term (see `scorePassage`). */
export const BM25_FLOOR_PER_TERM = 0.6;

/** The statistics of one agent's knowledge base that BM25 needs. */
export interface CorpusStats {
  /** Chunks the agent has. */
  chunks: number;
  /** Their mean length in tokens. */
  avgLength: number;
  /** Chunks containing each query stem. */
  df: ReadonlyMap<string, number>;
}

export interface PassageScore {
  /** BM25 over the agent's own chunks (generic words down-weighted): the ranking score. */
  score: number;
  /** Query stems the passage contains. */
  matched: string[];
  /** Weighted share of the query's terms the passage contains, 0..1. */
  coverage: number;
  /** Above the relevance threshold: an agent's node may draft an answer from it. */
  relevant: boolean;
}

/** How many specific terms a passage must contain for this query. */
export function requiredTerms(q: AnalyzedQuery): number {
  const specific = q.weights.filter((w) => w === 1).length;
  return specific > 0 ? Math.min(MIN_SPECIFIC_TERMS, specific) : Math.min(MIN_SPECIFIC_TERMS, q.stems.length);
}

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Scores one passage (its stemmed tokens) against a query and decides whether it is relevant.
 *
 * Relevant means all three:
 * 1. coverage ≥ MIN_COVERAGE: at least half of the query's terms, generic words ("latest",
 *    "explain", "best way"…) counting a quarter;
 * 2. at least `requiredTerms(q)` distinct specific terms (two, or one for a one-word query), so
 *    one shared word — "computing" in a cloud-computing note for a quantum-computing question
 *    — is not enough;
 * 3. a BM25 floor of BM25_FLOOR_PER_TERM per required term, computed with each term's IDF
 *    floored at 1: the floor is about how present the terms are (term frequency against the
 *    passage's length), not how rare, because a small knowledge base that is entirely on the
 *    question's topic has near-zero IDF for exactly the words that make it relevant.
 */
export function scorePassage(q: AnalyzedQuery, tokens: readonly string[], stats: CorpusStats): PassageScore {
  const tf = new Map<string, number>();
  const wanted = new Set(q.stems);
  for (const t of tokens) if (wanted.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return scoreStemCounts(q, { length: tokens.length, tf }, stats);
}

/** `scorePassage` from a passage's token count and the counts of the query's stems in it. */
export function scoreStemCounts(q: AnalyzedQuery, counts: StemCounts, stats: CorpusStats): PassageScore {
  const { tf } = counts;
  const dl = counts.length;
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * dl) / Math.max(1, stats.avgLength));
  let score = 0;
  let floorScore = 0;
  let covered = 0;
  let total = 0;
  let specific = 0;
  const matched: string[] = [];
  q.stems.forEach((s, i) => {
    const w = q.weights[i] ?? 1;
    total += w;
    const f = tf.get(s) ?? 0;
    if (f === 0) return;
    matched.push(s);
    covered += w;
    if (w === 1) specific++;
    const saturation = (f * (BM25_K1 + 1)) / (f + norm);
    const termIdf = idf(Math.max(stats.chunks, 1), Math.min(stats.df.get(s) ?? 1, Math.max(stats.chunks, 1)));
    score += w * termIdf * saturation;
    floorScore += w * Math.max(1, termIdf) * saturation;
  });
  const coverage = total > 0 ? covered / total : 0;
  const need = requiredTerms(q);
  const specificMatched = q.weights.some((w) => w === 1) ? specific : matched.length;
  const relevant =
    matched.length > 0 &&
    coverage >= MIN_COVERAGE &&
    specificMatched >= need &&
    floorScore >= BM25_FLOOR_PER_TERM * need;
  return { score, matched, coverage, relevant };
}
