export { type FrontMatter, frontMatter, MAX_FRONT_MATTER_CHARS } from './front-matter.js';
export { htmlToMarkdown } from './html.js';
export {
  convertHtml,
  IngestSettings,
  NORMAL_PRIORITY_CPU_MS,
  ParserPool,
  parserPool,
  pdfToText,
  runIsolated,
  streamIsolated,
  taskModule,
  useParseTimeLimit,
} from './isolate.js';
export {
  checkMarkdownNesting,
  checkTextLength,
  DEFAULT_PARSE_LIMITS,
  htmlNestingDepth,
  markdownNestingDepth,
  type ParseLimit,
  ParseLimitError,
  type ParseLimits,
} from './limits.js';
export { extractPdfText, type PdfTextLimits } from './pdf.js';
export { type PdfScan, type PdfScanLimits, scanPdfStreams } from './pdf-scan.js';
export type { ParserIsolation } from './pool.js';
