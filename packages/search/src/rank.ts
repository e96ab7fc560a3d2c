import { stem } from './stem.js';
import { identifierParts, synonymsOf, versionedNames } from './synonyms.js';
import { queryTerms, tokenize } from './terms.js';

/**
 * Field-aware ranking of search candidates (BM25F with phrase and proximity rewards).
 *
 * BM25 over a chunk's text, even with the title and heading in other columns, ranks by how often
 * the rarer query words recur: a long section that repeats one of them beats the page whose
 * title names the topic and whose text holds every word of the question. The candidates FTS5
 * finds are rescored here:
 * - BM25F: each term's frequency is summed over the fields with their weights (title, URL or
 *   file path, heading path, body) before it saturates, so a word in the title counts like
 *   several in the body but never without bound;
 * - coverage: the share of the query's (IDF-weighted) words a candidate holds scales its score,
 *   so a chunk that answers every part of the question beats one that repeats one part;
 * - proximity: neighbouring query words found close together (a phrase) add to it;
 * - synonyms and identifier parts (see `synonyms.ts`) count at a lower weight.
 */

/** One term of a ranking query: a word, or a phrase (a synonym of several words), as stems. */
export interface RankTerm {
  stems: string[];
  /** 1 for the query's own words; less for generic words and expansions. */
  weight: number;
  /** An expansion (synonym or identifier part), not one of the query's own words. */
  expansion: boolean;
  /** The word or phrase as the query (or the synonym list) wrote it; the key for document frequencies. */
  text: string;
}

export interface RankQuery {
  terms: RankTerm[];
}

/** The text fields of a candidate. */
export interface RankFields {
  title: string;
  /** URL path or file name: its separators and identifier cases are split into words. */
  path: string;
  heading: string;
  body: string;
}

/** Field weights of BM25F. */
export const FIELD_WEIGHTS = { title: 3, path: 2, heading: 2, body: 1 } as const;
export const EXPANSION_WEIGHT = 0.5;
const K1 = 1.2;
const B = 0.75;
/** Share of the score that depends on coverage: score × (1 − C + C × coverage). */
const COVERAGE = 0.6;
/** Largest gap, in tokens, between two query words that still counts as them being close. */
const NEAR = 3;
/** Proximity reward, as a share of the pair's smaller IDF. */
const PROXIMITY = 0.6;

/**
 * The ranking query of a text: its content words (at most `maxTerms`), their synonyms and the
 * parts of their identifiers. `weightOf` down-weights a word (generic question words, say).
 */
export function rankQuery(
  text: string,
  maxTerms = 16,
  weightOf: (stem: string) => number = () => 1,
): RankQuery {
  const terms: RankTerm[] = [];
  const seen = new Set<string>();
  const add = (t: RankTerm) => {
    const key = t.stems.join(' ');
    if (!t.stems.length || seen.has(key)) return;
    seen.add(key);
    terms.push(t);
  };
  for (const w of queryTerms(text, maxTerms)) {
    const s = stem(w);
    add({ stems: [s], weight: weightOf(s), expansion: false, text: w });
  }
  for (const name of versionedNames(text)) {
    add({ stems: [stem(name)], weight: EXPANSION_WEIGHT, expansion: true, text: name });
  }
  for (const alt of synonymsOf(text)) {
    const stems = tokenize(alt.text).map(stem);
    add({ stems, weight: EXPANSION_WEIGHT, expansion: true, text: alt.text });
  }
  for (const part of identifierParts(text)) {
    add({ stems: [stem(part)], weight: EXPANSION_WEIGHT, expansion: true, text: part });
  }
  return { terms };
}

/** Splits a path (URL or file name) into words: separators, dots and identifier cases. */
export function pathWords(path: string): string {
  let p = path;
  try {
    if (/^[a-z]+:\/\//i.test(p)) p = new URL(p).pathname;
  } catch {
    // not a URL: use as written
  }
  return p.replace(/\.(md|mdx|markdown|html?|txt|pdf)$/i, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2');
}

interface FieldTokens {
  stems: string[][]; // per field, in FIELD order
  /** Per field, where each (query) stem is. */
  at: Array<Map<string, number[]>>;
}

const FIELDS = ['title', 'path', 'heading', 'body'] as const;
const NONE: readonly number[] = [];

/**
 * A candidate's fields as stems, with where each stem is. Only tokens that can stem to one of
 * the query's stems are stemmed (stemming keeps an ASCII token's first letter, so one whose
 * first letter begins no query stem cannot); the others stay as '' (no stem is empty), which
 * keeps every position and token count as they were.
 */
function fieldTokens(f: RankFields, initials: ReadonlySet<string>): FieldTokens {
  const stems = FIELDS.map((k) => tokenize(k === 'path' ? pathWords(f.path) : f[k]));
  const at = stems.map((tokens) => {
    const where = new Map<string, number[]>();
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.charCodeAt(0) < 128 && !initials.has(t[0]!)) {
        tokens[i] = '';
        continue;
      }
      const s = stem(t);
      tokens[i] = s;
      const list = where.get(s);
      if (list) list.push(i);
      else where.set(s, [i]);
    }
    return where;
  });
  return { stems, at };
}

/** Occurrences of a term (a word, or the phrase of its stems) in a field, with their positions. */
function positions(tokens: string[], at: Map<string, number[]>, term: string[]): readonly number[] {
  const starts = at.get(term[0]!);
  if (!starts) return NONE;
  if (term.length === 1) return starts;
  return starts.filter((i) => {
    if (i + term.length > tokens.length) return false;
    for (let j = 1; j < term.length; j++) if (tokens[i + j] !== term[j]) return false;
    return true;
  });
}

/**
 * Scores candidates for a query and returns them best first (ties keep the input order).
 * `idf(term)` is the term's IDF in the whole collection searched (not among the candidates).
 */
export function rankFields<T>(
  q: RankQuery,
  items: readonly T[],
  fields: (item: T) => RankFields,
  idf: (term: RankTerm) => number,
): Array<{ item: T; score: number }> {
  if (!items.length || !q.terms.length) return items.map((item) => ({ item, score: 0 }));
  const initials = new Set(q.terms.flatMap((t) => t.stems.map((s) => s.charAt(0))));
  const tokens = items.map((it) => fieldTokens(fields(it), initials));
  const avgBody = tokens.reduce((n, t) => n + t.stems[3]!.length, 0) / tokens.length || 1;
  const idfs = q.terms.map((t) => Math.max(0.05, idf(t)));
  const own = q.terms.map((t, i) => (t.expansion ? 0 : t.weight * idfs[i]!));
  const ownTotal = own.reduce((a, b) => a + b, 0) || 1;
  const weights = [FIELD_WEIGHTS.title, FIELD_WEIGHTS.path, FIELD_WEIGHTS.heading, FIELD_WEIGHTS.body];
  const ownIdx = q.terms.flatMap((t, i) => (t.expansion ? [] : [i]));
  const scored = items.map((item, idx) => {
    const { stems: fs, at: fieldAt } = tokens[idx]!;
    const norm = 1 - B + (B * fs[3]!.length) / avgBody;
    let score = 0;
    let covered = 0;
    // Positions of each own word in title+heading+body, for proximity.
    const where: Array<Array<[number, number]>> = [];
    q.terms.forEach((t, i) => {
      let tf = 0;
      const at: Array<[number, number]> = [];
      fs.forEach((toks, f) => {
        const pos = positions(toks, fieldAt[f]!, t.stems);
        tf += weights[f]! * (f === 3 ? pos.length / norm : Math.min(pos.length, 1));
        if (f !== 1) for (const p of pos) at.push([f, p]);
      });
      where.push(at);
      if (tf === 0) return;
      score += t.weight * idfs[i]! * ((tf * (K1 + 1)) / (tf + K1));
      covered += own[i]!;
    });
    // Proximity: consecutive own words of the query found within NEAR tokens in one field.
    for (let k = 1; k < ownIdx.length; k++) {
      const a = where[ownIdx[k - 1]!]!;
      const b = where[ownIdx[k]!]!;
      if (!a.length || !b.length) continue;
      const close = a.some(([fa, pa]) => b.some(([fb, pb]) => fa === fb && Math.abs(pb - pa) <= NEAR));
      if (close) score += PROXIMITY * Math.min(idfs[ownIdx[k - 1]!]!, idfs[ownIdx[k]!]!);
    }
    const coverage = covered / ownTotal;
    return { item, score: score * (1 - COVERAGE + COVERAGE * coverage), idx };
  });
  scored.sort((a, b) => b.score - a.score || a.idx - b.idx);
  return scored.map(({ item, score }) => ({ item, score }));
}

/**
 * Weight of the field-aware score beside the first-stage BM25 score in `rerankBlend` (both
 * scaled to their best candidate). Alone, the field-aware score ranked the evaluation set a
 * little below FTS5's BM25; blended at ½ it ranked it above.
 */
export const FIELD_BLEND = 0.5;

/**
 * Re-orders first-stage candidates (best first, `base` their BM25 score, higher better) by their
 * BM25 score plus `FIELD_BLEND` × their field-aware score (`rankFields`), each scaled to its best.
 */
export function rerankBlend<T>(
  q: RankQuery,
  items: readonly T[],
  base: (item: T) => number,
  fields: (item: T) => RankFields,
  idf: (term: RankTerm) => number,
): Array<{ item: T; score: number }> {
  if (!items.length) return [];
  const top = Math.max(1e-9, ...items.map(base));
  const ranked = rankFields(q, items, fields, idf);
  const best = Math.max(1e-9, ...ranked.map((r) => r.score));
  const order = new Map(items.map((it, i) => [it, i]));
  return ranked
    .map(({ item, score }) => ({ item, score: base(item) / top + (FIELD_BLEND * score) / best }))
    .sort((a, b) => b.score - a.score || order.get(a.item)! - order.get(b.item)!);
}

/** BM25's (Lucene's, never negative) IDF of a term in `df` of `n` rows. */
export const bm25Idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Share of a page's second-best candidate added to its best one by `groupByPage`. A page with two
 * passages on the question is a better answer than a page with one, but one strong passage
 * still beats two weak ones. Measured on the retrieval evaluation: 0.25 ranked it best of 0,
 * 0.25, 0.5 and 1 (BENCHMARKS.md, "Retrieval and drafting evaluations").
 */
export const SECOND_PASSAGE_SHARE = 0.25;

/**
 * Candidates (best first, `score` higher better) grouped by page, pages ordered by their best
 * candidate's score plus `SECOND_PASSAGE_SHARE` of their second best; each page's candidates
 * stay together, in their order. Ties keep the pages' first appearance.
 */
export function groupByPage<T>(
  items: readonly T[],
  page: (item: T) => string,
  score: (item: T) => number,
): T[] {
  const pages = new Map<string, T[]>();
  for (const item of items) {
    const key = page(item);
    const list = pages.get(key);
    if (list) list.push(item);
    else pages.set(key, [item]);
  }
  const value = (list: T[]) => score(list[0]!) + SECOND_PASSAGE_SHARE * (list[1] ? score(list[1]) : 0);
  return [...pages.values()]
    .map((list, order) => ({ list, order, v: value(list) }))
    .sort((a, b) => b.v - a.v || a.order - b.order)
    .flatMap((p) => p.list);
}
