import { checkMarkdownNesting } from '@lore/ingest/text';
import { type DocumentChunk, keywords, splitDocument } from '@lore/search';
import { passageText, SOURCE_KEYWORDS } from './knowledge-types.js';
import { indexTerms } from './search-terms.js';

/** A source's text cut into what the index stores, computed in a parser thread. */
export interface PreparedSource {
  pieces: DocumentChunk[];
  keywords: string[];
  /** The FTS terms of each piece, in order. */
  terms: string[];
}

/**
 * Splits a source, picks its keywords and stems its passages: the CPU-heavy part of adding a
 * source, run by `SourceIngestor` in one of @lore/ingest's parser threads (see `runIsolated`) so
 * that a hostile upload — Markdown nested thousands deep, a table of a million cells — costs
 * its sender a 400 and other calls nothing. Markdown nested deeper than `maxNesting` is
 * refused before it is split. Imports only the kit's text module and @lore/search.
 */
export async function prepareSource(
  text: string,
  format: 'markdown' | 'text',
  maxNesting: number,
): Promise<PreparedSource> {
  if (format === 'markdown') checkMarkdownNesting(text, maxNesting);
  const pieces = await splitDocument(text, { format });
  return {
    pieces,
    keywords: keywords(text, SOURCE_KEYWORDS),
    terms: pieces.map((p) => indexTerms(passageText(p.headingPath, p.text))),
  };
}
