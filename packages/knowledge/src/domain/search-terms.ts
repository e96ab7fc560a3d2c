import {
  ftsMatchQuery,
  GENERIC_STEMS,
  GENERIC_WEIGHT,
  queryTerms,
  STOP_WORDS,
  stem,
  stemmedText,
  tokenize,
} from '@lore/search';

export { GENERIC_STEMS, GENERIC_WEIGHT, stem };

/** Most distinct terms a query is searched with (BM25 over OR-ed common words is slow and vague). */
export const MAX_QUERY_TERMS = 12;

/** The stems of every token of `text`, in order (for the index and for term frequencies). */
export function stems(text: string): string[] {
  return tokenize(text).map(stem);
}

/** A passage's length in tokens and the counts of some stems in it. */
export interface StemCounts {
  length: number;
  tf: ReadonlyMap<string, number>;
}

/**
 * Counts `wanted` stems in texts as `stems(text)` would find them, with the token count. Only
 * tokens that can stem to a wanted stem are stemmed (stemming keeps an ASCII token's first
 * letter): stemming every token of every candidate was most of the time rescoring took.
 */
export function stemCounter(wanted: readonly string[]): (text: string) => StemCounts {
  const want = new Set(wanted);
  const initials = new Set(wanted.map((s) => s[0]));
  return (text) => {
    const tokens = tokenize(text);
    const tf = new Map<string, number>();
    for (const t of tokens) {
      if (t.charCodeAt(0) < 128 && !initials.has(t[0])) continue;
      const s = stem(t);
      if (want.has(s)) tf.set(s, (tf.get(s) ?? 0) + 1);
    }
    return { length: tokens.length, tf };
  };
}

/** What goes into an FTS5 column: the stems, space-separated (`stems(text).join(' ')`). */
export const indexTerms = stemmedText;

export interface AnalyzedQuery {
  /** The query's content terms as typed (stop words dropped, at most MAX_QUERY_TERMS). */
  terms: string[];
  /** Their distinct stems, in order. */
  stems: string[];
  /** Weight of each stem: 1, or GENERIC_WEIGHT for generic words. */
  weights: number[];
  /** The FTS5 expression OR-ing the stems, or null when nothing is searchable. */
  match: string | null;
}

export function analyzeQuery(text: string, maxTerms = MAX_QUERY_TERMS): AnalyzedQuery {
  const terms = queryTerms(text, maxTerms);
  const out: string[] = [];
  for (const t of terms) {
    const s = stem(t);
    // A stem that collides with a stop word would be dropped by ftsMatchQuery: keep the word.
    const key = STOP_WORDS.has(s) ? t : s;
    if (!out.includes(key)) out.push(key);
  }
  const match = out.length ? ftsMatchQuery(out.join(' '), maxTerms) : null;
  return { terms, stems: out, weights: out.map((s) => (GENERIC_STEMS.has(s) ? GENERIC_WEIGHT : 1)), match };
}
