export { type FrontMatter, frontMatter } from './front-matter.js';
export { htmlToMarkdown } from './html.js';
export { convertHtml, ParserPool, parserPool, pdfToText } from './isolate.js';
export {
  DEFAULT_PARSE_LIMITS,
  htmlNestingDepth,
  type ParseLimit,
  ParseLimitError,
  type ParseLimits,
} from './limits.js';
export { extractPdfText } from './pdf.js';
