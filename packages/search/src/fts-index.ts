/**
 * What a Lore FTS5 table holds and how it is queried: the indexed columns hold `stemmedText`
 * (Lore's own stemmer, `stem.ts`), the table's tokenizer only splits and folds, and queries are
 * stemmed with the same stemmer before they reach `MATCH`. Every FTS5 table of every service
 * (knowledge, docs, queries) is declared with `FTS_TOKENIZER`; `fts-index.test.ts` checks the
 * tables the services' migrations leave behind.
 */
import { ftsPhrase } from './fts.js';
import { stemmedText } from './stem.js';
import { queryTerms } from './terms.js';

/**
 * The `tokenize` option of every Lore FTS5 table: `unicode61` folding, diacritics removed, and
 * no `porter` (the text is stemmed by `stemmedText` before it is written).
 */
export const FTS_TOKENIZER = 'unicode61 remove_diacritics 2';

/**
 * Query terms (words, or phrases of several words) as an index written with `stemmedText` holds
 * them: each term's stems, de-duplicated in order, terms with no token left out. Pass each to
 * `ftsPhrase` (or a planner of `fts.ts`), never to `MATCH` raw.
 */
export function stemmedTerms(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of terms) {
    const s = stemmedText(t);
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/**
 * An FTS5 `MATCH` expression OR-ing the stems of a text's search terms (`queryTerms`), each
 * quoted: the query of a table whose rows are `stemmedText`. `null` when no term survives.
 */
export function stemmedMatchQuery(text: string, maxTerms?: number): string | null {
  const terms = stemmedTerms(queryTerms(text, maxTerms));
  return terms.length ? terms.map(ftsPhrase).join(' OR ') : null;
}
