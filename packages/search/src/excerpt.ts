import { tokenize, tokenSpans } from './terms.js';

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
