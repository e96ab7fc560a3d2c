export { EmbeddingsSettings } from './config.js';
export type { Embedder, EmbedderOptions } from './embeddings.js';
export { createEmbedder, embedderFromConfig } from './embeddings.js';
export type {
  FrontMatter,
  ParseLimit,
  ParseLimits,
  ParserIsolation,
  PdfScan,
  PdfScanLimits,
  PdfTextLimits,
} from './text.js';
export {
  checkMarkdownNesting,
  checkTextLength,
  convertHtml,
  DEFAULT_PARSE_LIMITS,
  extractPdfText,
  frontMatter,
  htmlNestingDepth,
  htmlToMarkdown,
  MAX_FRONT_MATTER_CHARS,
  markdownNestingDepth,
  ParseLimitError,
  ParserPool,
  parserPool,
  pdfToText,
  runIsolated,
  scanPdfStreams,
  streamIsolated,
  taskModule,
} from './text.js';
