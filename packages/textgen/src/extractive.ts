import type { Citation, GenerateRequest, GenerateResult } from '@lore/kit';
import { excerpt, queryTerms, stem } from '@lore/search';
import { type Aspect, aspectUnanswered, coversAspect, questionShape, stemsWithSynonyms } from './aspects.js';
import { type Unit, unitsOf } from './blocks.js';

export { stem } from '@lore/search';
export { sentencesOf } from './blocks.js';

export const NO_KNOWLEDGE_ANSWER = 'No relevant knowledge was found for this question.';
export const NO_KNOWLEDGE_SUMMARY =
  'No relevant knowledge was found: there are no peer answers to summarize.';

const MAX_SENTENCE_CHARS = 400;

interface Candidate {
  passage: number;
  position: number;
  text: string;
  kind: Unit['kind'];
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

/** Where `[n]` goes: after a sentence or a list's last item; on its own line after code or a table. */
function cite(c: Candidate, n: number): string {
  if (c.kind === 'code') return `${c.text}\n[${n}]`;
  if (c.kind === 'table') return `${c.text}\n\n[${n}]`;
  return `${c.text} [${n}]`;
}

/**
 * The parts of the question (and the names it mentions) that no passage speaks to. A name that
 * only the passages' sources hold ("rust-book.md" for "Rust") is spoken to: the document is about it.
 */
export function uncoveredParts(question: string, texts: string[], sources: string[] = []): string[] {
  const nonEmpty = texts.filter((t) => t.trim() !== '');
  if (!nonEmpty.length) return [];
  return notCovered(question, nonEmpty.map(stemsWithSynonyms), nonEmpty, sources);
}

function notCovered(
  question: string,
  passageStems: Set<string>[],
  texts: string[],
  sources: string[],
): string[] {
  const shape = questionShape(question);
  const all = new Set(passageStems.flatMap((s) => [...s]));
  for (const source of sources)
    for (const s of stemsWithSynonyms(source.replace(/[-_./]+/g, ' '))) all.add(s);
  const joined = texts.join('\n');
  const missing = shape.aspects.filter((a) => aspectUnanswered(a, all, joined));
  const out = missing.map((a) => `“${a.text}”`);
  const inMissing = new Set(missing.flatMap((a) => a.keys));
  for (const [s, word] of shape.entityWords)
    if (!all.has(s) && !inMissing.has(s) && !out.includes(word)) out.push(word);
  return out;
}

function listed(items: string[], conjunction: string): string {
  return items.length === 1
    ? items[0]!
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether a name is only the setting of the question ("What does Arc do in Rust?"): passages that
 * answer the rest are often about that setting without naming it, so its absence is no gap.
 */
function isSetting(name: string, question: string): boolean {
  if (name.startsWith('“')) return false;
  return new RegExp(`\\b(?:in|on|under|within|inside)\\s+(?:the\\s+)?${escapeRegExp(name)}\\b`, 'i').test(
    question,
  );
}

/**
 * The closing note for the parts of a question the passages leave out. A part or a name the
 * question asks about is a gap ("it says nothing about …"); a name that is only the setting of
 * the question is not claimed missing, only not named.
 */
export function partialNote(uncovered: string[], question: string): string {
  const settings = uncovered.filter((u) => isSetting(u, question));
  const gaps = uncovered.filter((u) => !settings.includes(u));
  const notes: string[] = [];
  if (gaps.length)
    notes.push(
      `The knowledge base only partly answers this question: it says nothing about ${listed(gaps, 'or')}.`,
    );
  if (settings.length)
    notes.push(
      `The passages quoted do not name ${listed(settings, 'or')}, so this answer may not be specific to ${settings.length === 1 ? 'it' : 'them'}.`,
    );
  return notes.join(' ');
}

/**
 * A deterministic answer assembled from the passages' own words, no model involved. Passages
 * are cut into quotable units: sentences, and code blocks, lists and tables kept whole (with the
 * sentence that introduces them). Units are scored by the question terms they contain (stop
 * words dropped, light stemming, abbreviations and close terms), each term weighted by how few
 * passages contain it (IDF-like) and by its role in the question (names, identifiers and figures
 * most, then the nouns and main verbs). Units are picked to cover every part of the question:
 * the top 3 (6 when `detailed`, or `maxSentences`), then more while a part is left uncovered.
 * They are grouped by source in their original order, each followed by a `[n]` marker for
 * `citations[n - 1]`. Parts of the question no passage speaks to are named in a closing note
 * and in `uncovered`.
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

  const shape = questionShape(req.question);
  const questionStems = [...new Set(queryTerms(req.question, 32).map(stem))];
  const passageStems = passages.map((p) => stemsWithSynonyms(p.text));
  const idf = new Map<string, number>();
  for (const t of questionStems) {
    const df = passageStems.filter((s) => s.has(t)).length;
    if (df > 0) idf.set(t, (1 + Math.log(passages.length / df)) * (shape.weight.get(t) ?? 1));
  }

  const candidates: Candidate[] = [];
  const candidateStems = new Map<number, Set<string>>();
  const seen = new Set<string>();
  passages.forEach((p, pi) => {
    unitsOf(p.text).forEach((unit, si) => {
      // A sentence said twice is quoted once; in a summary, once per peer, so that every peer
      // keeps its bullet even when all it said another peer said too.
      const key = summarize ? `${p.source}\n${unit.text.toLowerCase()}` : unit.text.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      const words = stemsWithSynonyms(unit.text);
      candidateStems.set(candidates.length, words);
      let overlap = 0;
      for (const [t, w] of idf) if (words.has(t)) overlap += w;
      const text =
        unit.kind === 'sentence' && unit.text.length > MAX_SENTENCE_CHARS
          ? excerpt(unit.text, questionStems, MAX_SENTENCE_CHARS)
          : unit.text;
      candidates.push({
        passage: pi,
        position: si,
        text,
        kind: unit.kind,
        overlap,
        rank: 0,
        index: candidates.length,
      });
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
  let uncovered: string[] = [];
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
    if (relevant.length > 0 && !req.maxSentences) {
      coverAspects(chosen, shape.aspects, relevant, candidateStems);
      uncovered = notCovered(
        req.question,
        passageStems,
        passages.map((p) => p.text),
        passages.map((p) => p.source),
      );
    }
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
    let block = '';
    let prev: Candidate | undefined;
    for (const c of group.sort(byOrigin)) {
      const p = passages[c.passage]!;
      citations.push({ id: p.id, source: p.source, excerpt: c.text });
      const part = summarize ? `- ${handle(src)}: ${cite(c, citations.length)}` : cite(c, citations.length);
      const sep = summarize ? '\n' : prev?.kind === 'sentence' && c.kind === 'sentence' ? ' ' : '\n\n';
      block = prev ? `${block}${sep}${part}` : part;
      prev = c;
    }
    blocks.push(block);
  }
  let text = blocks.join(summarize ? '\n' : '\n\n');
  if (uncovered.length) text = `${text}\n\n${partialNote(uncovered, req.question)}`;
  return { text, citations, strategy: 'extractive', ...(uncovered.length ? { uncovered } : {}) };
}

/** Adds, for each part of the question the picks leave out, the best unit that speaks to it. */
function coverAspects(
  chosen: Candidate[],
  aspects: Aspect[],
  relevant: Candidate[],
  stemsOf: ReadonlyMap<number, Set<string>>,
): void {
  for (const aspect of aspects) {
    const covered = chosen.some((c) => coversAspect(aspect, stemsOf.get(c.index) ?? new Set()));
    if (covered) continue;
    const best = relevant.find((c) => coversAspect(aspect, stemsOf.get(c.index) ?? new Set()));
    if (best && !chosen.includes(best)) chosen.push(best);
  }
}
