/** One ranked list of ids, best first, named by the signal that produced it ("words", "meaning"). */
export interface SignalRanking {
  signal: string;
  ids: string[];
  /** How much this list counts (default 1): each rank adds `weight / (k + rank)`. */
  weight?: number;
}

/** A fused hit: its score and the signals whose lists held it, in the order the lists were given. */
export interface FusedHit {
  id: string;
  score: number;
  signals: string[];
}

/**
 * Reciprocal rank fusion (Cormack et al., 2009): each list adds `1 / (k + rank)` (rank from 1)
 * to every id it holds. Rank fusion needs no calibration between BM25 scores and cosines,
 * which live on unrelated scales; k = 60 damps the top ranks of any one list so that an id
 * found by both signals beats one found first by a single signal. An id repeated within a list
 * counts once, at its best rank. Best first; ties keep the order in which ids were first seen.
 */
export function fuseRankings(lists: SignalRanking[], k = 60): FusedHit[] {
  if (!(k >= 0) || !Number.isFinite(k))
    throw new RangeError(`fuseRankings: k must be a finite number ≥ 0, got ${k}`);
  const fused = new Map<string, { id: string; score: number; signals: string[]; order: number }>();
  for (const { signal, ids, weight = 1 } of lists) {
    const seen = new Set<string>();
    ids.forEach((id, rank) => {
      if (seen.has(id)) return;
      seen.add(id);
      const inc = weight / (k + rank + 1);
      const entry = fused.get(id);
      if (entry) {
        entry.score += inc;
        if (!entry.signals.includes(signal)) entry.signals.push(signal);
      } else fused.set(id, { id, score: inc, signals: [signal], order: fused.size });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ id, score, signals }) => ({ id, score, signals }));
}
