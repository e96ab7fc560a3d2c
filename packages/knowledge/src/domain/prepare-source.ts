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
  /**
   * The pieces as the chunks table's rows, `[position, heading_path, text, length]`, in one
   * JSON array (`jsonText`): what `SourceIngestor` hands SQLite's `json_each`, built here so
   * that the service's event loop does not serialise ~100 KB a source.
   */
  rows: string;
  /** The pieces' FTS terms as one JSON array of strings (`jsonText`), for the same reason. */
  termRows: string;
}

// A lone surrogate, as JSON.stringify escapes it (paired ones it writes as they are), not
// itself behind an escaped backslash: the kit's `rowsJson` rule.
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * A value as JSON for SQLite's `json_each`, lone UTF-16 surrogates replaced by U+FFFD — what
 * binding the string stores (SQLite would otherwise keep invalid UTF-8, which libsql cannot
 * read back), and what the kit's `rowsJson` does for `insertRows`.
 */
export function jsonText(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\ud') ? json.replace(LONE_SURROGATE, '$1\\ufffd') : json;
}

/** Two JSON arrays (as `jsonText` writes them) as one. */
export function joinJsonArrays(a: string, b: string): string {
  if (a === '[]') return b;
  if (b === '[]') return a;
  return `${a.slice(0, -1)},${b.slice(1)}`;
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
 * source, run by `SourceIngestor` in one of @lore/ingest's parser threads (`streamIsolated`)
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
    const texts: string[] = [];
    const headings: string[] = [];
    const terms: string[] = [];
    const lengths: number[] = [];
    const rows: Array<[number, string, string, number]> = [];
    for (const p of pieces.slice(start, start + size)) {
      const t = indexTerms(passageText(p.headingPath, p.text));
      const heading = JSON.stringify(p.headingPath);
      const length = termCount(t);
      texts.push(p.text);
      headings.push(heading);
      terms.push(t);
      lengths.push(length);
      rows.push([start + rows.length, heading, p.text, length]);
    }
    send({ start, texts, headings, terms, lengths, rows: jsonText(rows), termRows: jsonText(terms) });
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
