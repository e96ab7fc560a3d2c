/**
 * Common English words that carry no search signal (the NLTK list, plus a few words that are
 * noise in questions put to agents).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against ain all also am among an and any are aren as at be because been ' +
    'before being below between both but by can could couldn d did didn do does doesn doing don down ' +
    'during each etc few for from further had hadn has hasn have haven having he her here hers ' +
    'herself him himself his how i if in into is isn it its itself just ll m may me might mightn more ' +
    'most must mustn my myself needn no nor not now o of off on once only or other our ours ourselves ' +
    'out over own please re s same shall shan she should shouldn since so some such t than that the their ' +
    'theirs them themselves then there these they this those through to too under until up upon us ve very ' +
    'via was wasn we were weren what when where whether which while who whom whose why will with within ' +
    'won would wouldn y yet you your yours yourself yourselves'
  ).split(' '),
);

// A token is a run of letters (with their combining marks) and digits: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/u.
// Ingest tokenises megabytes of text per source, so the scanner below classifies characters
// through a table (ASCII up front, the rest of the BMP on first sight) instead of that regex.
const OTHER = 0;
const STARTS = 1; // a letter or a digit: starts a token, or continues one
const CONTINUES = 2; // a combining mark: continues a token only
const UNKNOWN = 3;
const STARTS_TOKEN = /^[\p{L}\p{N}]$/u;
const MARK = /^\p{M}$/u;
const bmpClass = new Uint8Array(0x10000).fill(UNKNOWN);
for (let c = 0; c < 0x80; c++) {
  const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  bmpClass[c] = alnum ? STARTS : OTHER;
}

function classify(ch: string): number {
  return STARTS_TOKEN.test(ch) ? STARTS : MARK.test(ch) ? CONTINUES : OTHER;
}

/** The class of the character at `i` (a code unit, or a surrogate pair counted at its first half). */
function classAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return classify(s.slice(i, i + 2));
  }
  let k = bmpClass[c]!;
  if (k === UNKNOWN) bmpClass[c] = k = classify(String.fromCharCode(c));
  return k;
}

const width = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
};

/** Where the token at or after `from` starts (`s.length` when there is none). */
function tokenStart(s: string, from: number): number {
  const n = s.length;
  let i = from;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (bmpClass[c] === STARTS) return i;
      i++;
    } else if (classAt(s, i) === STARTS) return i;
    else i += width(s, i);
  }
  return n;
}

/** Where the token that starts at `start` ends. */
function tokenEnd(s: string, start: number): number {
  const n = s.length;
  let i = start + width(s, start);
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (bmpClass[c] !== STARTS) return i;
      i++;
    } else if (classAt(s, i) === OTHER) return i;
    else i += width(s, i);
  }
  return n;
}

/** Lower-cased word tokens of `text`, in order, stop words included. */
export function tokenize(text: string): string[] {
  const s = text.toLowerCase();
  const out: string[] = [];
  for (let i = tokenStart(s, 0); i < s.length; i = tokenStart(s, i)) {
    const end = tokenEnd(s, i);
    out.push(s.slice(i, end));
    i = end;
  }
  return out;
}

/** Tokens with their offsets into `text` (offsets into the original, not the lower-cased string). */
export function tokenSpans(text: string): Array<{ token: string; start: number; end: number }> {
  const out: Array<{ token: string; start: number; end: number }> = [];
  for (let start = tokenStart(text, 0); start < text.length; start = tokenStart(text, start)) {
    const end = tokenEnd(text, start);
    out.push({ token: text.slice(start, end).toLowerCase(), start, end });
    start = end;
  }
  return out;
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** True for tokens worth searching on: not a stop word, at least two characters. */
export function isContentTerm(token: string): boolean {
  return !STOP_WORDS.has(token) && codePointLength(token) > 1;
}

/**
 * The search terms of a piece of text: lower-cased tokens without stop words and one-letter
 * tokens, de-duplicated, in order of first appearance. Over `maxTerms`, the longer (rarer
 * looking) terms win, terms with digits get a bonus, and ties go to the earlier term; the
 * result keeps the original order.
 */
export function queryTerms(text: string, maxTerms = 12): string[] {
  const cap = Math.floor(maxTerms);
  if (!(cap > 0)) return [];
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    if (seen.has(token) || !isContentTerm(token)) continue;
    seen.add(token);
    terms.push(token);
  }
  if (terms.length <= cap) return terms;
  const weight = (t: string) => codePointLength(t) + (/\p{N}/u.test(t) ? 3 : 0);
  const keep = terms
    .map((term, i) => ({ i, w: weight(term) }))
    .sort((a, b) => b.w - a.w || a.i - b.i)
    .slice(0, cap)
    .map((x) => x.i)
    .sort((a, b) => a - b);
  return keep.map((i) => terms[i]!);
}

/**
 * An FTS5 `MATCH` expression that ORs the query's terms, each quoted as a string (so FTS5
 * syntax in user text — `NEAR`, `*`, `-`, column filters, unbalanced quotes — is inert).
 * `null` when no term survives; never pass raw user text to `MATCH`.
 */
export function ftsMatchQuery(text: string, maxTerms?: number): string | null {
  const terms = queryTerms(text, maxTerms);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/**
 * The most frequent content terms of `text`, for topic summaries. Terms are counted (TF);
 * a pair of adjacent content terms seen at least twice competes as a phrase with a small
 * boost and hides its words when they never occur apart. Ties go to the earlier term.
 */
export function keywords(text: string, n = 8): string[] {
  const cap = Math.floor(n);
  if (!(cap > 0)) return [];
  // Ingest summarises whole sources (up to 2M characters): terms are numbered once, pairs are
  // counted by number, and only the few best candidates are kept in order, never all sorted.
  const s = text.toLowerCase();
  const ids = new Map<string, number>();
  const terms: string[] = [];
  const tf: number[] = [];
  const first: number[] = [];
  // The id of each token in order, -1 for the tokens that are no keyword (they break phrases).
  const seq = scratch((s.length + 1) >> 1);
  let tokens = 0;
  const length = s.length;
  for (let i = 0; i < length; ) {
    const c = s.charCodeAt(i);
    if (c < 0x80 ? bmpClass[c] !== STARTS : classAt(s, i) !== STARTS) {
      i += c < 0x80 ? 1 : width(s, i);
      continue;
    }
    // Most tokens are ASCII: scan them here, noting digits-only, and skip the short ones and
    // the numbers without making a string.
    let end = i;
    let digits = true;
    for (; end < length; end++) {
      const d = s.charCodeAt(end);
      if (d >= 0x80 || bmpClass[d] !== STARTS) break;
      if (d > 0x39) digits = false;
    }
    const ascii = end > i && !(end < length && s.charCodeAt(end) >= 0x80 && classAt(s, end) !== OTHER);
    if (!ascii) end = tokenEnd(s, i);
    seq[tokens] =
      ascii && (end - i <= 2 || digits)
        ? -1
        : keywordId(s.slice(i, end), ascii, ids, terms, tf, first, tokens + 1);
    tokens++;
    i = end;
  }
  // A phrase is the pair (a, b) of term ids, keyed a·D + b (D distinct terms). Only words seen
  // twice can make a phrase seen twice, so pairs with a one-off word are not counted.
  const distinct = terms.length;
  const pairs = new Map<number, number>();
  const pairA: number[] = [];
  const pairB: number[] = [];
  const pairTf: number[] = [];
  const pairFirst: number[] = [];
  for (let p = 1; p < tokens; p++) {
    const a = seq[p - 1]!;
    const b = seq[p]!;
    if (a < 0 || b < 0 || a === b || tf[a]! < 2 || tf[b]! < 2) continue;
    const key = a * distinct + b;
    const k = pairs.get(key);
    if (k !== undefined) pairTf[k]!++;
    else {
      pairs.set(key, pairA.length);
      pairA.push(a);
      pairB.push(b);
      pairTf.push(1);
      pairFirst.push(p);
    }
  }

  // Every candidate visited is either kept or hidden by a kept phrase (two words each at
  // most), so the best 3·cap candidates, in order, are all the selection below can reach.
  const best = new TopCandidates(3 * cap);
  for (let t = 0; t < distinct; t++) best.offer(tf[t]!, first[t]!, t);
  for (let k = 0; k < pairA.length; k++) {
    if (pairTf[k]! >= 2) best.offer(pairTf[k]! * 1.5, pairFirst[k]!, ~k);
  }
  const hidden = new Set<number>();
  const out: string[] = [];
  for (const c of best.ranked()) {
    if (out.length >= cap) break;
    if (c >= 0) {
      if (hidden.has(c)) continue;
      out.push(terms[c]!);
      continue;
    }
    const k = ~c;
    const a = pairA[k]!;
    const b = pairB[k]!;
    if (tf[a]! <= pairTf[k]!) hidden.add(a);
    if (tf[b]! <= pairTf[k]!) hidden.add(b);
    out.push(`${terms[a]} ${terms[b]}`);
  }
  return out;
}

// One buffer for keywords() calls, which do not nest: a new array the size of a source's tokens
// costs more than filling it.
let scratchBuffer = new Int32Array(4096);
function scratch(size: number): Int32Array {
  if (scratchBuffer.length < size) scratchBuffer = new Int32Array(Math.max(size, 2 * scratchBuffer.length));
  return scratchBuffer;
}

/**
 * The id of `token` as a keyword (numbering it, and counting it), or -1 when it is no keyword:
 * a stop word, shorter than three characters, or a number. An ASCII token comes here only when
 * it is long enough and not a number.
 */
function keywordId(
  token: string,
  ascii: boolean,
  ids: Map<string, number>,
  terms: string[],
  tf: number[],
  first: number[],
  pos: number,
): number {
  const id = ids.get(token);
  if (id !== undefined) {
    if (id >= 0) tf[id]!++;
    return id;
  }
  // Stop words are remembered as -1: one lookup a token.
  if (ascii ? STOP_WORDS.has(token) : !isKeyword(token)) {
    ids.set(token, -1);
    return -1;
  }
  ids.set(token, terms.length);
  terms.push(token);
  tf.push(1);
  first.push(pos);
  return terms.length - 1;
}

const isKeyword = (token: string) =>
  isContentTerm(token) && codePointLength(token) > 2 && !/^\p{N}+$/u.test(token);

/**
 * The best `size` keyword candidates by score, then earliest first position. A word and a
 * phrase can tie only when the phrase starts with that word where both first occur; the word,
 * a prefix of the phrase, sorts first. Words are ids ≥ 0, phrases ~index (< 0). A heap with
 * the worst kept candidate on top turns most candidates away with one comparison.
 */
class TopCandidates {
  private readonly score: number[] = [];
  private readonly first: number[] = [];
  private readonly id: number[] = [];

  constructor(private readonly size: number) {}

  offer(score: number, first: number, id: number): void {
    const n = this.id.length;
    if (n < this.size) {
      this.score.push(score);
      this.first.push(first);
      this.id.push(id);
      for (let i = n; i > 0; ) {
        const up = (i - 1) >> 1;
        if (!this.worse(i, up)) break;
        this.swap(i, up);
        i = up;
      }
      return;
    }
    if (n === 0 || !better(score, first, id, this.score[0]!, this.first[0]!, this.id[0]!)) return;
    this.score[0] = score;
    this.first[0] = first;
    this.id[0] = id;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.worse(l, worst)) worst = l;
      if (r < n && this.worse(r, worst)) worst = r;
      if (worst === i) break;
      this.swap(i, worst);
      i = worst;
    }
  }

  /** The kept candidates' ids, best first. */
  ranked(): number[] {
    const order = this.id.map((_, i) => i);
    order.sort((i, j) => (this.worse(j, i) ? -1 : this.worse(i, j) ? 1 : 0));
    return order.map((i) => this.id[i]!);
  }

  private worse(i: number, j: number): boolean {
    return better(this.score[j]!, this.first[j]!, this.id[j]!, this.score[i]!, this.first[i]!, this.id[i]!);
  }

  private swap(i: number, j: number): void {
    [this.score[i], this.score[j]] = [this.score[j]!, this.score[i]!];
    [this.first[i], this.first[j]] = [this.first[j]!, this.first[i]!];
    [this.id[i], this.id[j]] = [this.id[j]!, this.id[i]!];
  }
}

function better(score: number, first: number, id: number, score2: number, first2: number, id2: number) {
  if (score !== score2) return score > score2;
  if (first !== first2) return first < first2;
  return id >= 0 && id2 < 0;
}

/**
 * The window of `text` (whitespace collapsed) of at most `max` characters holding the most
 * query terms (distinct terms first, then occurrences), widened around them, cut at word
 * boundaries, with `…` where it was cut. Without any match, the start of the text.
 */
export function excerpt(text: string, terms: string[], max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const limit = Math.floor(max);
  if (flat.length <= limit) return flat;
  if (limit <= 2) return flat.slice(0, Math.max(0, limit));
  const budget = limit - 2; // room for both ellipses

  const wanted = new Set<string>();
  for (const term of terms) for (const t of tokenize(term)) wanted.add(t);
  const matchesTerm = (token: string): string | null => {
    if (wanted.has(token)) return token;
    for (const w of wanted) {
      if (w.length >= 4 && token.startsWith(w) && token.length - w.length <= 3) return w;
    }
    return null;
  };
  const hits: Array<{ start: number; end: number; term: string }> = [];
  if (wanted.size > 0) {
    for (const span of tokenSpans(flat)) {
      const term = matchesTerm(span.token);
      if (term !== null) hits.push({ start: span.start, end: span.end, term });
    }
  }

  let spanStart = 0;
  let spanEnd = 0;
  if (hits.length > 0) {
    let best = { distinct: -1, count: -1, i: 0, j: 0 };
    const inWindow = new Map<string, number>();
    let j = 0;
    for (let i = 0; i < hits.length; i++) {
      const hi = hits[i]!;
      while (j < hits.length && hits[j]!.end - hi.start <= budget) {
        const t = hits[j]!.term;
        inWindow.set(t, (inWindow.get(t) ?? 0) + 1);
        j++;
      }
      const count = j - i;
      if (count > 0) {
        const distinct = inWindow.size;
        if (distinct > best.distinct || (distinct === best.distinct && count > best.count)) {
          best = { distinct, count, i, j: j - 1 };
        }
      }
      if (j > i) {
        const left = inWindow.get(hi.term)! - 1;
        if (left === 0) inWindow.delete(hi.term);
        else inWindow.set(hi.term, left);
      } else {
        j = i + 1; // a single hit longer than the budget
      }
    }
    spanStart = hits[best.i]!.start;
    spanEnd = Math.min(hits[best.j]!.end, spanStart + budget);
  }

  // Centre the matched span in the window, then clamp to the text.
  const slack = budget - (spanEnd - spanStart);
  let start = Math.max(0, spanStart - Math.floor(slack / 2));
  let end = Math.min(flat.length, start + budget);
  start = Math.max(0, end - budget);

  // Cut at word boundaries without losing the matched span.
  if (start > 0 && flat[start - 1] !== ' ') {
    const sp = flat.indexOf(' ', start);
    if (sp !== -1 && sp < spanStart) start = sp + 1;
  }
  if (end < flat.length && flat[end] !== ' ') {
    const sp = flat.lastIndexOf(' ', end);
    if (sp > start && sp >= spanEnd) end = sp;
  }
  const body = flat.slice(start, end).trim();
  return (start > 0 ? '…' : '') + body + (end < flat.length ? '…' : '');
}
