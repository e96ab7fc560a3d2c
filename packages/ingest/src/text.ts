export { type FrontMatter, frontMatter } from './front-matter.js';
export { htmlToMarkdown } from './html.js';
export {
  convertHtml,
  ParserPool,
  parserPool,
  pdfToText,
  runIsolated,
  streamIsolated,
  taskModule,
} from './isolate.js';
export {
  checkMarkdownNesting,
  DEFAULT_PARSE_LIMITS,
  htmlNestingDepth,
  markdownNestingDepth,
  type ParseLimit,
  ParseLimitError,
  type ParseLimits,
} from './limits.js';
export { extractPdfText } from './pdf.js';
