import { LOCAL_MODEL } from '@lore/embed';
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

/**
 * How a model's similarities read as relevance: a passage is relevant when its cosine similarity
 * to the question reaches `minSimilarity` and, plus `lexicalWeight` times its lexical coverage (the
 * weighted share of the question's terms it contains, 0..1), reaches `threshold`. Both judged on
 * the question without its greetings and politeness (`withoutFiller`).
 */
export interface MeaningScale {
  threshold: number;
  lexicalWeight: number;
  /**
   * The least similarity any passage needs, whatever words it shares with the question: the
   * lexical share may tip a close paraphrase over the line, never lift a loosely related note
   * ("Who painted the Mona Lisa?" against a note on watercolours).
   */
  minSimilarity: number;
  /**
   * How far below the question's best passage a passage may fall and still be relevant: a draft
   * draws on the passages that answer best, not on every one over the threshold.
   */
  margin: number;
}

/**
 * The models whose similarities are calibrated, on test/fixtures/relevance-eval.ts (30 notes, 90
 * questions, 28 unrelated questions and 30 near misses: a neighbour of one note's subject that no
 * note answers, such as tuning a piano beside a note on tuning a guitar; `pnpm
 * calibrate:knowledge` prints the grid, the knowledge README the figures). For all-MiniLM-L6-v2
 * (int8) a weight of 0.25 with a threshold of 0.33 drafts 97.8 % of the questions from the right
 * note; the threshold can go no higher while "how often should I give my swiss cheese plant a
 * drink?" still finds a note on watering a monstera (similarity 0.34–0.37, no word shared). A floor
 * of 0.30 on the similarity alone keeps every right note and turns away questions that only share
 * words with a note the model finds unrelated ("how much water should I drink each day?" and the
 * houseplants note): 13.8 % of the questions no note answers match with it, 19.0 % with 0.25; one unrelated question of 28 and seven near
 * misses of 30 remain, which the model cannot tell from a paraphrase (a threshold of 0.43 turns
 * them away, and the swiss cheese plant with them). Passages more than `margin` below the best one
 * were relevant for 21 % of the questions beside the right note; with a margin of 0.1, for 3 % (no
 * right note lost). A model not listed here ranks by meaning, but relevance stays the lexical
 * rule: its similarities are on another scale.
 */
export const MEANING_SCALES: Readonly<Record<string, MeaningScale>> = {
  [LOCAL_MODEL]: { threshold: 0.33, lexicalWeight: 0.25, minSimilarity: 0.3, margin: 0.1 },
};

/** The evidence `MeaningScale` compares with its threshold. */
export const meaningEvidence = (similarity: number, lexical: PassageScore, scale: MeaningScale) =>
  similarity + scale.lexicalWeight * lexical.coverage;

/**
 * Whether a passage is relevant to the question: by meaning and words together when the passage
 * has a vector of a calibrated model, by words alone (`scorePassage`) otherwise — a chunk whose
 * vector is still being computed, an uncalibrated model, or no embedder.
 */
export function isRelevant(
  lexical: PassageScore,
  similarity: number | undefined,
  scale: MeaningScale | undefined,
): boolean {
  if (similarity === undefined || !scale) return lexical.relevant;
  return similarity >= scale.minSimilarity && meaningEvidence(similarity, lexical, scale) >= scale.threshold;
}

/** One candidate passage as relevance sees it. */
export interface Candidate {
  lexical: PassageScore;
  /** Its cosine similarity to the question; absent while it has no vector. */
  similarity?: number;
}

export interface Judgement {
  relevant: boolean;
  /** Meaning and words together (`meaningEvidence`); absent when judged by words alone. */
  evidence?: number;
}

/**
 * Judges one question's candidates together: each by `isRelevant`, then those by meaning more
 * than `scale.margin` below the best relevant one are not relevant (a draft draws on the
 * passages that answer best). The knowledge search and `pnpm calibrate:knowledge` both use it.
 */
export function judgeCandidates(
  candidates: readonly Candidate[],
  scale: MeaningScale | undefined,
): Judgement[] {
  const judged: Judgement[] = candidates.map((c) => ({
    relevant: isRelevant(c.lexical, c.similarity, scale),
    ...(c.similarity !== undefined && scale
      ? { evidence: meaningEvidence(c.similarity, c.lexical, scale) }
      : {}),
  }));
  if (!scale) return judged;
  const best = Math.max(
    ...judged.flatMap((j) => (j.relevant && j.evidence !== undefined ? [j.evidence] : [])),
  );
  for (const j of judged)
    if (j.evidence !== undefined && j.evidence < best - scale.margin) j.relevant = false;
  return judged;
}
