import { isContentTerm, stem, tokenize } from '@lore/search';
import { sentencesOf } from '@lore/textgen';

/** A source a peer's answer cites: the document and the words quoted from it. */
export interface PeerSource {
  source: string;
  excerpt: string;
}

/** One point made by one or more peers: the peers' sentences that say it, by peer. */
export interface SummaryPoint {
  peers: string[];
  sentences: Array<{ peer: string; text: string; sources?: PeerSource[] }>;
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
export function mergePoints(
  answers: Array<{ peer: string; text: string; citations?: PeerSource[] }>,
): SummaryPoint[] {
  const points: Array<SummaryPoint & { words: Set<string>; order: number }> = [];
  for (const a of answers) {
    for (const text of sentencesOf(a.text)) {
      const w = words(text);
      if (!w.size) continue;
      const said = a.citations
        ? { peer: a.peer, text, sources: sourcesOf(text, a.citations) }
        : { peer: a.peer, text };
      const point = points.find((p) => jaccard(p.words, w) >= SAME_POINT);
      if (point) {
        point.sentences.push(said);
        if (!point.peers.includes(a.peer)) point.peers.push(a.peer);
        for (const x of w) point.words.add(x);
      } else
        points.push({
          peers: [a.peer],
          sentences: [said],
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

/**
 * The peer's citations a sentence of its answer draws on: those whose excerpt says the same
 * (half its words or more), else every citation of the answer (the sentence came from it).
 */
function sourcesOf(text: string, citations: PeerSource[]): PeerSource[] {
  const w = words(text);
  const close = citations.filter((c) => {
    const e = words(c.excerpt);
    let shared = 0;
    for (const x of w) if (e.has(x)) shared++;
    return shared / Math.max(1, Math.min(w.size, e.size)) >= SAME_POINT;
  });
  return close.length ? close : citations;
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

const at = (peer: string) => `@${peer.replace(/^@/, '')}`;

function attribution(p: SummaryPoint, detailed: boolean): string {
  return p.peers
    .map((peer) => {
      if (!detailed) return at(peer);
      const sources = [
        ...new Set(
          p.sentences.filter((s) => s.peer === peer).flatMap((s) => (s.sources ?? []).map((c) => c.source)),
        ),
      ];
      return sources.length ? `${at(peer)} citing ${sources.join(', ')}` : at(peer);
    })
    .join(detailed ? '; ' : ', ');
}

/**
 * The points as text, each with the peers who made it and where they disagree. Concise: the
 * points several peers made (empty when there are none). Detailed: every point, each peer with
 * the sources its answer cites for it.
 */
export function pointsText(points: SummaryPoint[], detailed = false): string {
  const shown = detailed ? points : points.filter((p) => p.peers.length > 1);
  if (!shown.length) return '';
  const line = (p: SummaryPoint) =>
    `- ${p.sentences[0]!.text} (${attribution(p, detailed)})` +
    (p.disagreement ? ` — peers disagree: ${p.disagreement}` : '');
  return `${detailed ? 'Points, by peer' : 'Points made by several peers'}:\n${shown.map(line).join('\n')}`;
}
