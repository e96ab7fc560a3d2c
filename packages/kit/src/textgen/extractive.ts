import { excerpt, isContentTerm, queryTerms, stem, tokenize } from '@lore/search';
import type { Citation, GenerateRequest, GenerateResult } from './types.js';

export const NO_KNOWLEDGE_ANSWER = 'No relevant knowledge was found for this question.';
export const NO_KNOWLEDGE_SUMMARY =
  'No relevant knowledge was found: there are no peer answers to summarize.';

const MAX_SENTENCE_CHARS = 400;
const LIST_MARKER = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
const FENCE = /^\s{0,3}(?:`{3,}|~{3,})/;
const HEADING = /^\s{0,3}#{1,6}(?:\s|$)/;
const CITATION_MARKER = /\s*\[\d+(?:\s*[,–-]\s*\d+)*\]/g;
// A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a
// capital, digit or opening quote/bracket.
const SENTENCE_BREAK = /(?<=[.!?]["'”’)\]]*)\s+(?=["'“‘([]?[\p{Lu}\p{N}])/u;

export { stem };

function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(text)) if (isContentTerm(t)) out.add(stem(t));
  return out;
}

/**
 * Splits a passage into sentences: fenced code, headings and table rules are skipped, list
 * items and paragraphs are units, soft-wrapped lines are joined, and existing `[n]` markers
 * are removed. A passage without a proper sentence yields its whole text as one.
 */
export function sentencesOf(text: string): string[] {
  const units: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length > 0) units.push(para.join(' '));
    para = [];
  };
  let inFence = false;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(raw)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const line = raw.replace(/^\s*>\s?/, '').trim();
    if (line === '' || HEADING.test(line) || /^\|?[\s:|-]+\|?$/.test(line)) {
      flush();
      continue;
    }
    if (LIST_MARKER.test(line) || line.startsWith('|')) {
      flush();
      para.push(line.replace(LIST_MARKER, ''));
      continue;
    }
    para.push(line);
  }
  flush();

  const sentences: string[] = [];
  for (const unit of units) {
    for (const piece of unit.split(SENTENCE_BREAK)) {
      const s = piece.replace(CITATION_MARKER, '').replace(/\s+/g, ' ').trim();
      if (tokenize(s).length >= 2) sentences.push(s);
    }
  }
  if (sentences.length === 0) {
    const whole = text.replace(CITATION_MARKER, '').replace(/\s+/g, ' ').trim();
    if (whole !== '') sentences.push(whole);
  }
  return sentences;
}

interface Candidate {
  passage: number;
  position: number;
  text: string;
  /** Weighted overlap with the question. */
  overlap: number;
  rank: number;
  /** Position in the candidate list (keys its stems). */
  index: number;
}

/** More sentences than the limit an answer may take to cover parts of the question the best ones miss. */
const COVERAGE_EXTRA = 2;

/**
 * Picks sentences so that together they cover the question: greedily, the sentence adding the
 * most weight of question terms not yet covered (then the best ranked), until every term the
 * passages hold is covered and `limit` is reached — past `limit` only while a pick still covers
 * something new, at most `COVERAGE_EXTRA` more. The highest-scoring sentences alone often
 * repeat one part of a question ("quantum computing") and leave out another ("error correction").
 */
function coverQuestion(
  ranked: Candidate[],
  idf: ReadonlyMap<string, number>,
  limit: number,
  stemsOf: ReadonlyMap<number, Set<string>>,
  extra: number,
): Candidate[] {
  const covered = new Set<string>();
  const chosen: Candidate[] = [];
  const left = [...ranked];
  while (left.length && chosen.length < limit + extra) {
    let best = 0;
    let gain = -1;
    left.forEach((c, i) => {
      let g = 0;
      for (const t of stemsOf.get(c.index) ?? []) if (!covered.has(t)) g += idf.get(t) ?? 0;
      if (g > gain) {
        gain = g;
        best = i;
      }
    });
    if (chosen.length >= limit && gain <= 0) break;
    const [pick] = left.splice(best, 1);
    chosen.push(pick!);
    for (const t of stemsOf.get(pick!.index) ?? []) if (idf.has(t)) covered.add(t);
  }
  return chosen;
}

const byRank = (a: Candidate, b: Candidate) => a.rank - b.rank;
const byOrigin = (a: Candidate, b: Candidate) => a.passage - b.passage || a.position - b.position;

function handle(source: string): string {
  const s = source.trim();
  return s.startsWith('@') ? s : `@${s}`;
}

/**
 * A deterministic answer assembled from the passages' own sentences, no model involved.
 * Sentences are scored by the question terms they contain (stop words dropped, light
 * stemming), each term weighted by how few passages contain it (IDF-like); ties go to earlier
 * sentences and earlier passages. The top 3 (6 when `detailed`, or `maxSentences`) are kept
 * — only those sharing a term with the question when there are any — grouped by source in
 * their original order, each followed by a `[n]` marker for `citations[n - 1]`.
 *
 * For `summarize` (passages are peers' answers), every peer gets at least one bullet,
 * `- @peer: sentence [n]`, in the order the peers appear.
 */
export function extractiveAnswer(req: GenerateRequest): GenerateResult {
  const passages = req.passages.filter((p) => p.text.trim() !== '');
  const summarize = req.task === 'summarize';
  if (passages.length === 0) {
    return {
      text: summarize ? NO_KNOWLEDGE_SUMMARY : NO_KNOWLEDGE_ANSWER,
      citations: [],
      strategy: 'extractive',
    };
  }
  const limit = Math.max(1, Math.floor(req.maxSentences ?? (req.detailed ? 6 : 3)));

  const questionStems = [...new Set(queryTerms(req.question, 32).map(stem))];
  const passageStems = passages.map((p) => stems(p.text));
  const idf = new Map<string, number>();
  for (const t of questionStems) {
    const df = passageStems.filter((s) => s.has(t)).length;
    if (df > 0) idf.set(t, 1 + Math.log(passages.length / df));
  }

  const candidates: Candidate[] = [];
  const candidateStems = new Map<number, Set<string>>();
  const seen = new Set<string>();
  passages.forEach((p, pi) => {
    sentencesOf(p.text).forEach((raw, si) => {
      const key = raw.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      const words = stems(raw);
      candidateStems.set(candidates.length, words);
      let overlap = 0;
      for (const [t, w] of idf) if (words.has(t)) overlap += w;
      const text = raw.length > MAX_SENTENCE_CHARS ? excerpt(raw, questionStems, MAX_SENTENCE_CHARS) : raw;
      candidates.push({ passage: pi, position: si, text, overlap, rank: 0, index: candidates.length });
    });
  });
  // Rank: overlap first, then lead sentences, then earlier passages.
  const ordered = [...candidates].sort(
    (a, b) => b.overlap - a.overlap || a.position - b.position || a.passage - b.passage,
  );
  ordered.forEach((c, i) => {
    c.rank = i;
  });
  const relevant = ordered.filter((c) => c.overlap > 0);

  let chosen: Candidate[];
  if (summarize) {
    const picked = new Set<Candidate>();
    const firstOfSource = new Map<string, Candidate>();
    for (const c of ordered) {
      const src = passages[c.passage]!.source;
      if (!firstOfSource.has(src)) firstOfSource.set(src, c);
    }
    for (const c of firstOfSource.values()) picked.add(c);
    for (const c of relevant.length > 0 ? relevant : ordered) {
      if (picked.size >= Math.max(limit, firstOfSource.size)) break;
      picked.add(c);
    }
    chosen = [...picked];
  } else {
    const extra = req.maxSentences ? 0 : COVERAGE_EXTRA;
    chosen =
      relevant.length > 0
        ? coverQuestion(relevant, idf, limit, candidateStems, extra)
        : ordered.slice(0, limit);
    // Retrieval judged the passages relevant to the question as a whole: one that shares no
    // word with it ("a logical qubit below the error-correction threshold" for "latest
    // developments in quantum computing") still answers part of it. Each passage left out
    // gives its best sentence, in retrieval order, while there is room.
    // One sharing no word with the question is taken only from a document already quoted
    // (the same source, so the same topic), never from an unrelated one.
    const quoted = new Set(chosen.map((c) => c.passage));
    const sources = new Set(chosen.map((c) => passages[c.passage]!.source));
    for (const c of ordered) {
      if (chosen.length >= limit + extra) break;
      if (quoted.has(c.passage)) continue;
      quoted.add(c.passage);
      if (c.overlap > 0 || sources.has(passages[c.passage]!.source)) chosen.push(c);
    }
  }

  // Group by source: sources in the order they appear (summaries) or of their best sentence
  // (answers); sentences of a source in their original order.
  const groups = new Map<string, Candidate[]>();
  const groupOrder = summarize ? [...chosen].sort(byOrigin) : [...chosen].sort(byRank);
  for (const c of groupOrder) {
    const src = passages[c.passage]!.source;
    const g = groups.get(src);
    if (g) g.push(c);
    else groups.set(src, [c]);
  }

  const citations: Citation[] = [];
  const blocks: string[] = [];
  for (const [src, group] of groups) {
    const parts = group.sort(byOrigin).map((c) => {
      const p = passages[c.passage]!;
      citations.push({ id: p.id, source: p.source, excerpt: c.text });
      return summarize
        ? `- ${handle(src)}: ${c.text} [${citations.length}]`
        : `${c.text} [${citations.length}]`;
    });
    blocks.push(parts.join(summarize ? '\n' : ' '));
  }
  return { text: blocks.join(summarize ? '\n' : '\n\n'), citations, strategy: 'extractive' };
}
