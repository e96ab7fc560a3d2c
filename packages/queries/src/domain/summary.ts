import { sentencesOf } from '@lore/kit';
import { isContentTerm, stem, tokenize } from '@lore/search';

/** One point made by one or more peers: the peers' sentences that say it, by peer. */
export interface SummaryPoint {
  peers: string[];
  sentences: Array<{ peer: string; text: string }>;
  /** Peers say it with different numbers, or one of them denies it. */
  disagreement: string | null;
}

/** Sentences sharing at least this share of their content words (Jaccard) make the same point. */
const SAME_POINT = 0.5;
const NEGATION = /\b(?:not|no|never|cannot|can't|don't|doesn't|isn't|aren't|won't|without)\b/i;
const NUMBER = /\d+(?:[.,]\d+)?/g;

const words = (s: string) => new Set(tokenize(s).filter(isContentTerm).map(stem));

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.max(1, a.size + b.size - shared);
}

/**
 * The points peers' answers make, merged across peers: a sentence joins the first point whose
 * sentences share at least half of its content words, else starts a new one. A point made by
 * several peers is flagged when their sentences carry different numbers, or when one negates
 * what another affirms. Points made by more peers come first, then in the order first made.
 */
export function mergePoints(answers: Array<{ peer: string; text: string }>): SummaryPoint[] {
  const points: Array<SummaryPoint & { words: Set<string>; order: number }> = [];
  for (const a of answers) {
    for (const text of sentencesOf(a.text)) {
      const w = words(text);
      if (!w.size) continue;
      const point = points.find((p) => jaccard(p.words, w) >= SAME_POINT);
      if (point) {
        point.sentences.push({ peer: a.peer, text });
        if (!point.peers.includes(a.peer)) point.peers.push(a.peer);
        for (const x of w) point.words.add(x);
      } else
        points.push({
          peers: [a.peer],
          sentences: [{ peer: a.peer, text }],
          disagreement: null,
          words: w,
          order: points.length,
        });
    }
  }
  for (const p of points) p.disagreement = disagreement(p.sentences);
  return points
    .sort((a, b) => b.peers.length - a.peers.length || a.order - b.order)
    .map(({ peers, sentences, disagreement: d }) => ({ peers, sentences, disagreement: d }));
}

function disagreement(sentences: Array<{ peer: string; text: string }>): string | null {
  const peers = new Set(sentences.map((s) => s.peer));
  if (peers.size < 2) return null;
  const numbers = new Map<string, string>();
  for (const s of sentences) numbers.set(s.peer, (s.text.match(NUMBER) ?? []).join(' '));
  const distinctNumbers = new Set([...numbers.values()].filter(Boolean));
  if (distinctNumbers.size > 1)
    return `figures differ: ${[...numbers]
      .filter(([, n]) => n)
      .map(([p, n]) => `@${p.replace(/^@/, '')} ${n}`)
      .join(' vs ')}`;
  const negated = sentences.filter((s) => NEGATION.test(s.text)).map((s) => s.peer);
  if (negated.length && negated.length < sentences.length)
    return `@${negated[0]!.replace(/^@/, '')} says otherwise`;
  return null;
}

/** The points as text: each with its peers, and the disagreements flagged. Empty for a single peer's answers. */
export function pointsText(points: SummaryPoint[]): string {
  const shared = points.filter((p) => p.peers.length > 1);
  if (!shared.length) return '';
  const line = (p: SummaryPoint) =>
    `- ${p.sentences[0]!.text} (${p.peers.map((x) => `@${x.replace(/^@/, '')}`).join(', ')})` +
    (p.disagreement ? ` — peers disagree: ${p.disagreement}` : '');
  return `Points made by several peers:\n${shared.map(line).join('\n')}`;
}
