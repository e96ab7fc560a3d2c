/**
 * The light English stemmer Lore's knowledge index is written with, shared so that ranking
 * code in any service can compare words the same way.
 */

/**
 * The version of what `stem` / `stemmedText` return. Every index that stores stemmed text
 * (knowledge's chunks and articles, docs' chunks, queries' questions) records the version it was
 * written with and is rewritten in the background at start when it differs. Bump it whenever
 * the stem of any word changes (a suffix row, a length bound, the plural step…).
 * 2: `-er` stripped only when five letters remain (router, server keep their own stems);
 * `-ability` / `-ibility` become `-abl` / `-ibl`.
 */
export const STEMMER_VERSION = '2';

// One derivational suffix is stripped after the plural, longest first.
const SUFFIXES: Array<[string, string]> = [
  ['ational', 'ate'],
  ['ization', 'ize'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['ibility', 'ibl'],
  ['ability', 'abl'],
  ['ment', ''],
  ['ness', ''],
  ['ingly', ''],
  ['ing', ''],
  ['edly', ''],
  ['ied', 'y'],
  ['ed', ''],
  ['er', ''],
  ['ly', ''],
];
const KEEP_S = /(?:ss|us|is|os)$/;
const SIBILANT = /(?:s|x|z|ch|sh)$/;
const DOUBLE = /([bdfgkmnprt])\1$/;

function plural(t: string): string {
  if (t.endsWith('ies') && t.length > 4) return `${t.slice(0, -3)}y`;
  if (t.endsWith('es') && t.length > 4 && SIBILANT.test(t.slice(0, -2))) return t.slice(0, -2);
  if (t.endsWith('s') && !KEEP_S.test(t)) return t.slice(0, -1);
  return t;
}

import { tokenEnd, tokenStart } from './terms.js';

/**
 * The stemmer's first step alone: a lower-case word's plural made singular (`queries` → query,
 * `classes` → class, `users` → user; `status`, `analysis` and words of three letters or fewer
 * kept). For looking words up in a word list, where a full stem would not be a key.
 */
export function singular(word: string): string {
  return word.length <= 3 ? word : plural(word);
}

/**
 * A light English stemmer (plural, then one of -ing, -ed, -er, -ment, -ly…, then a final -e),
 * applied the same way to the indexed text and to queries, so "developments", "developing"
 * and "developed" meet at "develop" and "computers"/"computing"/"compute" at "comput".
 * Diacritics are dropped. Deliberately small: no stem is shorter than three characters.
 */
export function stem(token: string): string {
  const known = memo.get(token);
  if (known !== undefined) return known;
  const s = stemUncached(token);
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(token, s);
  return s;
}

/**
 * The stems of every token of `text`, space-separated: `tokenize(text).map(stem).join(' ')`
 * in one pass, without the two arrays (what a knowledge source's passages are indexed with).
 */
export function stemmedText(text: string): string {
  const s = text.toLowerCase();
  const n = s.length;
  let out = '';
  let first = true;
  for (let i = tokenStart(s, 0); i < n; i = tokenStart(s, i)) {
    const end = tokenEnd(s, i);
    const token = s.slice(i, end);
    // An ASCII token of three characters or fewer is its own stem (most of them are stop words).
    let st = end - i <= 3 && ascii3(s, i, end) ? token : memo.get(token);
    if (st === undefined) st = stem(token);
    if (first) {
      out = st;
      first = false;
    } else out += ` ${st}`;
    i = end;
  }
  return out;
}

function ascii3(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

// Stemming is the hot path of rescoring; words repeat, so a bounded memo pays.
const MEMO_SIZE = 100_000;
const memo = new Map<string, string>();
const ASCII = /^[\x00-\x7f]*$/;

function stemUncached(token: string): string {
  let t = ASCII.test(token) ? token : token.normalize('NFD').replace(/\p{M}/gu, '');
  if (t.length <= 3 || /\p{N}/u.test(t)) return t;
  t = plural(t);
  for (const [suffix, replacement] of SUFFIXES) {
    if (!t.endsWith(suffix)) continue;
    const base = t.slice(0, -suffix.length) + replacement;
    // `-er` needs a longer base: "router" and "server" are not route and serve.
    if (base.length < (suffix === 'er' ? 5 : 3)) continue;
    t = DOUBLE.test(base) && base.length > 3 ? base.slice(0, -1) : base;
    break;
  }
  if (t.length > 3 && t.endsWith('e')) t = t.slice(0, -1);
  return t;
}
