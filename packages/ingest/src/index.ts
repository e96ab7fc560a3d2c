export { EmbeddingsSettings } from './config.js';
export type { Embedder, EmbedderOptions } from './embeddings.js';
export { createEmbedder, embedderFromConfig } from './embeddings.js';
export type { FrontMatter, ParseLimit, ParseLimits } from './text.js';
export {
  checkMarkdownNesting,
  convertHtml,
  DEFAULT_PARSE_LIMITS,
  extractPdfText,
  frontMatter,
  htmlNestingDepth,
  htmlToMarkdown,
  markdownNestingDepth,
  ParseLimitError,
  ParserPool,
  parserPool,
  pdfToText,
  runIsolated,
  streamIsolated,
  taskModule,
} from './text.js';
