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

// A token is a run of letters (with their combining marks) and digits.
const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

/** Lower-cased word tokens of `text`, in order, stop words included. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Tokens with their offsets into `text` (offsets into the original, not the lower-cased string). */
export function tokenSpans(text: string): Array<{ token: string; start: number; end: number }> {
  const out: Array<{ token: string; start: number; end: number }> = [];
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index ?? 0;
    out.push({ token: m[0].toLowerCase(), start, end: start + m[0].length });
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
  const counts = new Map<string, { tf: number; first: number }>();
  const bump = (key: string, pos: number) => {
    const c = counts.get(key);
    if (c) c.tf++;
    else counts.set(key, { tf: 1, first: pos });
  };
  const bigrams = new Set<string>();
  let prev: string | null = null;
  let pos = 0;
  for (const token of tokenize(text)) {
    pos++;
    const keep = isContentTerm(token) && codePointLength(token) > 2 && !/^\p{N}+$/u.test(token);
    if (!keep) {
      prev = null;
      continue;
    }
    bump(token, pos);
    if (prev !== null && prev !== token) {
      const bigram = `${prev} ${token}`;
      bump(bigram, pos - 1);
      bigrams.add(bigram);
    }
    prev = token;
  }
  const candidates: Array<{ term: string; score: number; tf: number; first: number }> = [];
  for (const [term, { tf, first }] of counts) {
    if (bigrams.has(term)) {
      if (tf >= 2) candidates.push({ term, score: tf * 1.5, tf, first });
    } else {
      candidates.push({ term, score: tf, tf, first });
    }
  }
  candidates.sort((a, b) => b.score - a.score || a.first - b.first || (a.term < b.term ? -1 : 1));
  const hidden = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    if (out.length >= cap) break;
    if (hidden.has(c.term)) continue;
    if (bigrams.has(c.term)) {
      for (const part of c.term.split(' ')) {
        if ((counts.get(part)?.tf ?? 0) <= c.tf) hidden.add(part);
      }
    }
    out.push(c.term);
  }
  return out;
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
