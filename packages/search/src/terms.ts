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
export const OTHER = 0;
export const STARTS = 1; // a letter or a digit: starts a token, or continues one
const CONTINUES = 2; // a combining mark: continues a token only
const UNKNOWN = 3;
const STARTS_TOKEN = /^[\p{L}\p{N}]$/u;
const MARK = /^\p{M}$/u;
export const bmpClass = new Uint8Array(0x10000).fill(UNKNOWN);
for (let c = 0; c < 0x80; c++) {
  const alnum = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  bmpClass[c] = alnum ? STARTS : OTHER;
}

function classify(ch: string): number {
  return STARTS_TOKEN.test(ch) ? STARTS : MARK.test(ch) ? CONTINUES : OTHER;
}

/** The class of the character at `i` (a code unit, or a surrogate pair counted at its first half). */
export function classAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return classify(s.slice(i, i + 2));
  }
  let k = bmpClass[c]!;
  if (k === UNKNOWN) bmpClass[c] = k = classify(String.fromCharCode(c));
  return k;
}

export const width = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
};

/** Where the token at or after `from` starts (`s.length` when there is none). */
export function tokenStart(s: string, from: number): number {
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
export function tokenEnd(s: string, start: number): number {
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

export function codePointLength(s: string): number {
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
  for (const { token, start } of tokenSpans(text)) {
    if (seen.has(token)) continue;
    // A segment of a path written in the question (`/about/`) is a literal, even a stop word.
    if (!isContentTerm(token) && !(text[start - 1] === '/' && codePointLength(token) > 1)) continue;
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
