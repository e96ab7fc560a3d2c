import { describe, expect, it } from 'vitest';
import {
  BM25_FLOOR_PER_TERM,
  isRelevant,
  judgeCandidates,
  requiredTerms,
  scorePassage,
} from './relevance.js';
import { analyzeQuery, stems } from './search-terms.js';

const stats = (chunks: number, avgLength: number, df: Record<string, number> = {}) => ({
  chunks,
  avgLength,
  df: new Map(Object.entries(df)),
});
const QUESTION = analyzeQuery('What are the latest developments in quantum computing?');

describe('scorePassage', () => {
  it('accepts a passage on the question’s topic, even in a one-chunk knowledge base (where IDF is near zero)', () => {
    const text =
      'Quantum computing news: the latest developments are logical qubits and better quantum error correction.';
    const s = scorePassage(
      QUESTION,
      stems(text),
      stats(1, stems(text).length, { quantum: 1, comput: 1, latest: 1, develop: 1 }),
    );
    expect(s.relevant).toBe(true);
    expect(s.coverage).toBe(1);
  });

  it('refuses a passage that shares only generic words and one specific word', () => {
    const text = 'The latest developments in our bakery: a new oven, and cloud computing for the till.';
    const s = scorePassage(QUESTION, stems(text), stats(3, 20, { latest: 1, develop: 1, comput: 1 }));
    expect(s.matched).toEqual(['latest', 'develop', 'comput']);
    expect(s.coverage).toBeGreaterThanOrEqual(0.5);
    expect(s.relevant).toBe(false);
  });

  it('refuses a passage that matches nothing', () => {
    expect(scorePassage(QUESTION, stems('Feed the sourdough starter daily.'), stats(3, 10)).relevant).toBe(
      false,
    );
  });

  it('refuses when under half the weighted terms are present', () => {
    const q = analyzeQuery('quantum entanglement teleportation decoherence');
    const text = 'Quantum entanglement links particles.';
    const s = scorePassage(q, stems(text), stats(2, 6, { quantum: 1, entangl: 1 }));
    expect(s.coverage).toBe(0.5);
    expect(s.relevant).toBe(true);
    expect(
      scorePassage(
        analyzeQuery('quantum entanglement teleportation decoherence superdense'),
        stems(text),
        stats(2, 6),
      ).relevant,
    ).toBe(false);
  });

  it('applies the BM25 floor: the same two words are enough in a short passage, not drowned in a very long one', () => {
    const q = analyzeQuery('quantum entanglement');
    expect(requiredTerms(q)).toBe(2);
    const short = stems('Quantum entanglement explained.');
    const long = stems(
      `Quantum entanglement. ${'Unrelated filler words about gardening and weather. '.repeat(60)}`,
    );
    const s1 = scorePassage(q, short, stats(40, 12, { quantum: 2, entangl: 2 }));
    const s2 = scorePassage(q, long, stats(40, 12, { quantum: 2, entangl: 2 }));
    expect(s1.relevant).toBe(true);
    expect(s2.coverage).toBe(1);
    expect(s2.relevant).toBe(false);
    expect(s2.score).toBeLessThan(BM25_FLOOR_PER_TERM * 2 * 2);
  });

  it('ranks rarer terms higher within one knowledge base', () => {
    const q = analyzeQuery('qubit decoherence');
    const a = scorePassage(q, stems('qubit decoherence'), stats(100, 2, { qubit: 90, decoher: 2 }));
    const b = scorePassage(q, stems('qubit qubit'), stats(100, 2, { qubit: 90, decoher: 2 }));
    expect(a.score).toBeGreaterThan(b.score);
  });

  it('needs one term for a one-word question', () => {
    const q = analyzeQuery('qubits?');
    expect(requiredTerms(q)).toBe(1);
    expect(scorePassage(q, stems('A qubit holds a superposition.'), stats(5, 6, { qubit: 1 })).relevant).toBe(
      true,
    );
  });
});

describe('isRelevant', () => {
  const scale = { threshold: 0.33, lexicalWeight: 0.25, minSimilarity: 0.2, margin: 0.1 };
  const lexical = (relevant: boolean, coverage: number) => ({ score: 1, matched: [], coverage, relevant });

  it('judges by meaning and words together when the passage has a vector of a calibrated model', () => {
    expect(isRelevant(lexical(false, 0), 0.4, scale)).toBe(true);
    expect(isRelevant(lexical(false, 0), 0.3, scale)).toBe(false);
    // Words add evidence: a paraphrase a little under the threshold with half the question's terms.
    expect(isRelevant(lexical(false, 0.5), 0.25, scale)).toBe(true);
    // Words alone do not decide: all of them in a passage about something else.
    expect(isRelevant(lexical(true, 1), 0.05, scale)).toBe(false);
    // Nor lift a loosely related passage: under the least similarity, whatever the words.
    expect(isRelevant(lexical(false, 0.8), 0.19, scale)).toBe(false);
    expect(isRelevant(lexical(false, 0.8), 0.2, scale)).toBe(true);
  });

  it('falls back on the lexical rule without a vector or a calibrated model', () => {
    expect(isRelevant(lexical(true, 1), undefined, scale)).toBe(true);
    expect(isRelevant(lexical(false, 0.2), undefined, scale)).toBe(false);
    expect(isRelevant(lexical(true, 1), 0.05, undefined)).toBe(true);
  });
});

describe('judgeCandidates', () => {
  const scale = { threshold: 0.33, lexicalWeight: 0.25, minSimilarity: 0.2, margin: 0.1 };
  const lexical = (relevant: boolean, coverage: number) => ({ score: 1, matched: [], coverage, relevant });

  it('keeps only the passages within the margin of the best relevant one', () => {
    const judged = judgeCandidates(
      [
        { lexical: lexical(false, 0), similarity: 0.6 },
        { lexical: lexical(false, 0), similarity: 0.45 },
        { lexical: lexical(false, 0), similarity: 0.52 },
      ],
      scale,
    );
    expect(judged.map((j) => j.relevant)).toEqual([true, false, true]);
    expect(judged[0]!.evidence).toBeCloseTo(0.6);
  });

  it('judges a passage without a vector by its words, beside the others', () => {
    const judged = judgeCandidates(
      [{ lexical: lexical(true, 1) }, { lexical: lexical(false, 0), similarity: 0.1 }],
      scale,
    );
    expect(judged).toEqual([{ relevant: true }, { relevant: false, evidence: 0.1 }]);
  });

  it('is the lexical rule alone without a calibrated model', () => {
    expect(judgeCandidates([{ lexical: lexical(true, 1), similarity: 0.01 }], undefined)).toEqual([
      { relevant: true },
    ]);
  });
});
