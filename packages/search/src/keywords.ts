import {
  bmpClass,
  classAt,
  codePointLength,
  isContentTerm,
  OTHER,
  STARTS,
  STOP_WORDS,
  tokenEnd,
  width,
} from './terms.js';

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
