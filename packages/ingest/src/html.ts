import { createRequire } from 'node:module';
import type TurndownServiceType from 'turndown';
import { checkTextLength, DEFAULT_PARSE_LIMITS, htmlNestingDepth, ParseLimitError } from './limits.js';

const require = createRequire(import.meta.url);

// Elements whose content is not part of the document's text.
const DROPPED = new Set([
  'SCRIPT',
  'STYLE',
  'NAV',
  'FOOTER',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'SVG',
  'CANVAS',
]);

let capturedTitle: string | null = null;

let turndown: TurndownServiceType | undefined;

/** Built on first use, so services that never convert HTML do not load turndown. */
function getService(): TurndownServiceType {
  if (turndown) return turndown;
  const TurndownService = require('turndown') as typeof TurndownServiceType;
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    fence: '```',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  service.remove((node) => DROPPED.has(node.nodeName.toUpperCase()));
  service.addRule('lore-title', {
    filter: 'title',
    replacement: (_content, node) => {
      if (capturedTitle === null) {
        const t = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (t !== '') capturedTitle = t;
      }
      return '';
    },
  });
  turndown = service;
  return service;
}

function takeTitle(): string | null {
  const t = capturedTitle;
  capturedTitle = null;
  return t;
}

/**
 * Converts an HTML page to Markdown (ATX headings, fenced code) with turndown, dropping
 * scripts, styles, navigation and footers. The title is the `<title>`, else the first `# `
 * heading, else `null`. Runs in the calling thread: hostile pages go through `convertHtml`.
 *
 * HTML holds nothing that expands: an entity is longer than what it stands for, and turndown
 * writes at most a few characters of Markdown for each of the page's (escapes, list markers,
 * link brackets). So the page is bounded before it is parsed (`maxDocumentChars`, with its
 * nesting) and the Markdown after, both with a `size` ParseLimitError.
 */
export function htmlToMarkdown(
  html: string,
  maxNesting = DEFAULT_PARSE_LIMITS.maxNesting,
  maxDocumentChars = DEFAULT_PARSE_LIMITS.maxDocumentChars,
): { title: string | null; markdown: string } {
  checkTextLength(html, maxDocumentChars, 'the HTML page');
  // turndown walks the tree recursively: a page nested deeper than this would overflow the stack.
  const depth = htmlNestingDepth(html, maxNesting);
  if (depth > maxNesting)
    throw new ParseLimitError('nesting', `the HTML nests elements more than ${maxNesting} deep`);
  // turndown is synchronous, so the module-level capture cannot interleave between calls.
  capturedTitle = null;
  let markdown = getService().turndown(html);
  let title = takeTitle();
  checkTextLength(markdown, maxDocumentChars, 'the Markdown of the HTML page');
  markdown = markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (title === null) {
    const h1 = /^# +(.+?)\s*#*$/m.exec(markdown);
    if (h1?.[1]) title = h1[1].trim();
  }
  return { title, markdown };
}
