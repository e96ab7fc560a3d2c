// The embeddings client moved to @lore/embed; the docs service still reaches it from here.
export type { Embedder, HttpEmbedderOptions as EmbedderOptions } from '@lore/embed';
export {
  createHttpEmbedder as createEmbedder,
  httpEmbedderFromConfig as embedderFromConfig,
  RemoteEmbeddingsSettings as EmbeddingsSettings,
} from '@lore/embed';
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
  IngestSettings,
  MAX_FRONT_MATTER_CHARS,
  markdownNestingDepth,
  NORMAL_PRIORITY_CPU_MS,
  ParseLimitError,
  ParserPool,
  parserPool,
  pdfToText,
  runIsolated,
  scanPdfStreams,
  streamIsolated,
  taskModule,
  useParseTimeLimit,
} from './text.js';
