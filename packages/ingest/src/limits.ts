/** Which bound a hostile document ran into. */
/**
 * `inflated`: decompressed bytes (one stream, or a whole file); `size`: text (one string, one
 * page, one document) or a count of objects.
 */
export type ParseLimit = 'time' | 'memory' | 'pages' | 'nesting' | 'size' | 'inflated';

/** A document refused because parsing it would cost more than the limits allow. */
export class ParseLimitError extends Error {
  constructor(
    readonly limit: ParseLimit,
    message: string,
  ) {
    super(message);
    this.name = 'ParseLimitError';
  }
}

export interface ParseLimits {
  /**
   * Time for one document: the parser thread's CPU time where the system reports it (Linux),
   * wall-clock time elsewhere.
   */
  timeMs: number;
  /** Wall-clock time for one document where CPU time is counted (default: twice `timeMs`). */
  wallMs?: number;
  /** V8 old-generation heap of a parser thread. */
  memoryMb: number;
  /** Most pages of a PDF. */
  maxPages: number;
  /** Deepest element nesting of an HTML page, and of lists and block quotes in Markdown. */
  maxNesting: number;
  /**
   * Most bytes one compressed stream of a PDF may decompress to (content, object, xref, image
   * and font streams alike), counted while it inflates: the inflater stops at the first byte over.
   */
  maxStreamBytes: number;
  /** Most bytes all the compressed streams of one file may decompress to, counted the same way. */
  maxInflatedBytes: number;
  /**
   * Most characters of text in one string of a PDF (counted in its content streams while they
   * inflate) and on one page of it (counted as pdf.js hands over the page's text).
   */
  maxTextChars: number;
  /**
   * Most characters of text one document may yield: a PDF's pages together, an HTML page or a
   * Markdown file (before and after conversion).
   */
  maxDocumentChars: number;
  /** Most objects in a PDF, those packed in object streams included. */
  maxObjects: number;
}

/**
 * Generous for real documents (a 1,000-page manual, a page nested 40 deep, a scanned page of
 * 4,000 × 5,000 pixels), small enough that a compression bomb or 40,000 nested `<div>`s is
 * refused quickly: a PDF stream that would inflate to 700 MiB is refused after the first
 * 64 MiB it produces, or the first million characters of one string in it.
 */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  timeMs: 10_000,
  memoryMb: 256,
  maxPages: 2_000,
  maxNesting: 256,
  maxStreamBytes: 64 * 1024 * 1024,
  maxInflatedBytes: 512 * 1024 * 1024,
  maxTextChars: 1_000_000,
  maxDocumentChars: 20_000_000,
  maxObjects: 500_000,
};

/** A byte count as people read it: 64 MiB, 1.5 MiB, 900 KiB, 12 bytes. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/** Throws a `size` ParseLimitError when a text (what `what` names) is longer than `max` characters. */
export function checkTextLength(text: string, max: number, what: string): void {
  if (text.length > max)
    throw new ParseLimitError(
      'size',
      `${what} holds ${text.length.toLocaleString('en-US')} characters of text (at most ${max.toLocaleString('en-US')})`,
    );
}

/**
 * The deepest element nesting of an HTML string, by a linear scan of its tags (void
 * elements, comments and self-closed tags do not nest). Cheap enough to run before a
 * recursive converter, which would otherwise overflow its stack. Stops counting past `stop`.
 */
export function htmlNestingDepth(html: string, stop = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*?(\/?)>|<!--[\s\S]*?-->/g;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    const name = m[2]?.toLowerCase();
    if (!name || AUTO_CLOSED.has(name)) continue;
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (!m[3] && !VOID.has(name)) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stop) return max;
      }
    }
  }
  return max;
}

// The parser closes an open one of these when the next begins, so they never nest by themselves
// (lists nest through `ul`/`ol`, which are counted); an omitted end tag must not look like depth.
const AUTO_CLOSED = new Set(['p', 'li', 'dt', 'dd', 'option', 'tr', 'td', 'th']);

// Elements with no closing tag.
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

const QUOTE_PREFIX = /^(?: {0,3}>)+/;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;

/**
 * The deepest nesting of block quotes and lists in Markdown, by one linear pass over the
 * lines: a line's `>` markers, plus, for a list item, its indentation in steps of two columns
 * (a tab is four). Stops counting past `stop`. A splitter walks such a document in time that
 * grows with its depth, so a document nested thousands deep is refused before it is split.
 */
export function markdownNestingDepth(markdown: string, stop = Number.POSITIVE_INFINITY): number {
  let max = 0;
  let start = 0;
  while (start <= markdown.length) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const line = markdown.slice(start, end);
    start = end + 1;
    const quotes = QUOTE_PREFIX.exec(line)?.[0] ?? '';
    let depth = quotes.length ? quotes.split('>').length - 1 : 0;
    let rest = line.slice(quotes.length);
    let columns = 0;
    let i = 0;
    for (; i < rest.length && (rest[i] === ' ' || rest[i] === '\t'); i++) columns += rest[i] === '\t' ? 4 : 1;
    rest = rest.slice(i);
    if (LIST_MARKER.test(rest)) depth += 1 + Math.floor(columns / 2);
    if (depth > max) {
      max = depth;
      if (max > stop) return max;
    }
  }
  return max;
}

/** Throws a `nesting` ParseLimitError when Markdown nests deeper than `maxNesting`. */
export function checkMarkdownNesting(markdown: string, maxNesting: number): void {
  const depth = markdownNestingDepth(markdown, maxNesting);
  if (depth > maxNesting)
    throw new ParseLimitError(
      'nesting',
      `the Markdown nests lists or block quotes more than ${maxNesting} deep`,
    );
}
