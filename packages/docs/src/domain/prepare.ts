import { checkMarkdownNesting } from '@lore/ingest/text';
import { type DocumentChunk, splitDocument } from '@lore/search';
import { chunkStems } from './fts-stems.js';
import { type ParsedDocument, parseDocument, type SourceFormat } from './parse.js';

/** A page or file parsed and split, as a parser hands it back. */
export interface PreparedDocument {
  parsed: ParsedDocument;
  /** The chunks, with the stems their FTS row holds (`chunkStems`), computed here rather than in the write. */
  chunks: Array<DocumentChunk & { stems: { text: string; heading: string } }>;
}

/**
 * Parses one source (front matter, MDX, HTML to Markdown) and splits it: the CPU-heavy part
 * of ingesting a page, run by `ingest` in one of @lore/ingest's parsers (`runIsolated`), so
 * a crawled page nested thousands deep or a table of a million cells costs that page a
 * refusal and the service's other calls nothing. HTML deeper than `maxNesting` elements, and
 * Markdown deeper than `maxNesting` lists or block quotes, is refused before it is walked.
 * Imports only the kit's text module and @lore/search.
 */
export async function prepareDocument(
  raw: string,
  format: SourceFormat,
  fallbackTitle: string,
  maxNesting: number,
): Promise<PreparedDocument> {
  const parsed = parseDocument(raw, format, fallbackTitle, maxNesting);
  if (parsed.splitFormat === 'markdown') checkMarkdownNesting(parsed.content, maxNesting);
  const chunks = await splitDocument(parsed.content, { format: parsed.splitFormat });
  return { parsed, chunks: chunks.map((c) => ({ ...c, stems: chunkStems(c) })) };
}
