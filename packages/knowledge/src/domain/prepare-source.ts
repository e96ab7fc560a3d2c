import { checkMarkdownNesting } from '@lore/ingest/text';
import { keywords, splitDocument } from '@lore/search';
import { passageText, SOURCE_KEYWORDS } from './knowledge-types.js';
import { indexTerms } from './search-terms.js';

/** Consecutive pieces of a source with what the index stores of each, sent ahead of the rest. */
export interface PreparedPart {
  /** Position of the first piece in the source (pieces are numbered from 0, densely). */
  start: number;
  texts: string[];
  /** Each piece's heading path as JSON, the form the chunks table stores. */
  headings: string[];
  /** Each piece's FTS terms (`indexTerms` of its heading path and text). */
  terms: string[];
  /** How many terms each piece has. */
  lengths: number[];
}

/** What is known of a source once every part is sent. */
export interface PreparedEnd {
  keywords: string[];
  chunks: number;
}

// The first part is small so that the writes can start soon after the split; the next ones
// double, up to the rows the ingestor writes in one statement.
const FIRST_PART = 8;
export const MAX_PART = 400;

/**
 * Splits a source, stems its passages and picks its keywords: the CPU-heavy part of adding a
 * source, run by `SourceIngestor` in one of @lore/ingest's parsers (`streamIsolated`)
 * so that a hostile upload — Markdown nested thousands deep, a table of a million cells —
 * costs its sender a 400 and other calls nothing. Markdown nested deeper than `maxNesting` is
 * refused before it is split. The pieces go out in parts (`send`) as their terms are ready, so
 * the service writes the first ones while this thread stems the rest and picks the keywords;
 * nothing is sent before the whole text is split. Imports only the kit's text module and
 * @lore/search.
 */
export async function streamSource(
  text: string,
  format: 'markdown' | 'text',
  maxNesting: number,
  send: (part: PreparedPart) => void,
): Promise<PreparedEnd> {
  if (format === 'markdown') checkMarkdownNesting(text, maxNesting);
  const pieces = await splitDocument(text, { format });
  for (
    let start = 0, size = FIRST_PART;
    start < pieces.length;
    start += size, size = Math.min(MAX_PART, size * 2)
  ) {
    const part: PreparedPart = { start, texts: [], headings: [], terms: [], lengths: [] };
    for (const p of pieces.slice(start, start + size)) {
      const terms = indexTerms(passageText(p.headingPath, p.text));
      part.texts.push(p.text);
      part.headings.push(JSON.stringify(p.headingPath));
      part.terms.push(terms);
      part.lengths.push(termCount(terms));
    }
    send(part);
  }
  return { keywords: keywords(text, SOURCE_KEYWORDS), chunks: pieces.length };
}

/** Terms in an FTS column value (`indexTerms` joins them with single spaces). */
function termCount(terms: string): number {
  if (!terms) return 0;
  let n = 1;
  for (let i = 0; i < terms.length; i++) if (terms.charCodeAt(i) === 0x20) n++;
  return n;
}
