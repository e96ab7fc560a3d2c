import { checkMarkdownNesting } from '@lore/kit/text';
import { type DocumentChunk, keywords, splitDocument } from '@lore/search';
import { passageText, SOURCE_KEYWORDS } from './knowledge-types.js';
import { indexTerms } from './search-terms.js';

/** A source's passages as the index stores them, computed in a parser thread. */
export interface PreparedChunks {
  pieces: DocumentChunk[];
  /** The FTS terms of each piece, in order. */
  terms: string[];
}

/** A source's text cut into what the index stores, with its keywords. */
export interface PreparedSource extends PreparedChunks {
  keywords: string[];
}

/**
 * Splits a source and stems its passages: the CPU-heavy part of adding a source, run by
 * `SourceIngestor` in one of the kit's parser threads (see `runIsolated`) so that a hostile
 * upload — Markdown nested thousands deep, a table of a million cells — costs its sender a 400
 * and other calls nothing. Markdown nested deeper than `maxNesting` is refused before it is
 * split. Imports only the kit's text module and @lore/search.
 */
export async function prepareChunks(
  text: string,
  format: 'markdown' | 'text',
  maxNesting: number,
): Promise<PreparedChunks> {
  if (format === 'markdown') checkMarkdownNesting(text, maxNesting);
  const pieces = await splitDocument(text, { format });
  return { pieces, terms: pieces.map((p) => indexTerms(passageText(p.headingPath, p.text))) };
}

/**
 * A source's keywords, in a parser thread too: a task of its own, so that it runs while the
 * service writes the source's passages (they do not need it) instead of before.
 */
export function sourceKeywords(text: string): string[] {
  return keywords(text, SOURCE_KEYWORDS);
}

/** `prepareChunks` and `sourceKeywords` of one source, in one call. */
export async function prepareSource(
  text: string,
  format: 'markdown' | 'text',
  maxNesting: number,
): Promise<PreparedSource> {
  const chunks = await prepareChunks(text, format, maxNesting);
  return { ...chunks, keywords: sourceKeywords(text) };
}
