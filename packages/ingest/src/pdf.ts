import type { getDocumentProxy } from 'unpdf';
import { DEFAULT_PARSE_LIMITS, ParseLimitError, type ParseLimits } from './limits.js';
import { scanPdfStreams } from './pdf-scan.js';

// unpdf (and pdf.js) load on first use only.
let unpdfModule: Promise<typeof import('unpdf')> | undefined;
export const loadUnpdf = () => (unpdfModule ??= import('unpdf'));

let pdfjsLoaded: Promise<unknown> | undefined;

/**
 * Loads unpdf's bundled pdf.js once. Its modern build logs "Please use the `legacy` build
 * in Node.js environments." through console.log when the module is evaluated; text
 * extraction works on Node 20 regardless, so that one line is filtered while it loads.
 */
export function loadPdfjs(): Promise<unknown> {
  pdfjsLoaded ??= (async () => {
    const log = console.log;
    console.log = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('`legacy` build')) return;
      log(...args);
    };
    try {
      return await (await loadUnpdf()).getResolvedPDFJS();
    } finally {
      console.log = log;
    }
  })();
  return pdfjsLoaded;
}

function tidyPage(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The limits `extractPdfText` applies itself (time and memory are the parser's). */
export type PdfTextLimits = Pick<
  ParseLimits,
  'maxPages' | 'maxStreamBytes' | 'maxInflatedBytes' | 'maxTextChars' | 'maxDocumentChars' | 'maxObjects'
>;

/**
 * Extracts the text layer of a PDF with unpdf (pdf.js), in the calling process: hostile input
 * goes through `pdfToText`, which runs this in a parser process under time and memory limits.
 * Pages are joined by a blank line and line breaks within a page are kept, so the result
 * splits well; scanned pages without a text layer yield nothing. The input is copied (pdf.js
 * detaches the buffer it is given).
 *
 * Before pdf.js sees the file, `scanPdfStreams` decodes its compressed streams with counting
 * (`maxStreamBytes`, `maxInflatedBytes`, `maxTextChars` per string, `maxObjects`); more than
 * `maxPages` pages is refused before any is read; each page's text is counted as pdf.js hands
 * it over (`maxTextChars` per page, `maxDocumentChars` in all), and reading stops at the first
 * character over.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  limits: Partial<PdfTextLimits> = DEFAULT_PARSE_LIMITS,
): Promise<{ text: string; pages: number }> {
  const l: PdfTextLimits = { ...DEFAULT_PARSE_LIMITS, ...limits };
  await scanPdfStreams(bytes, l);
  await loadPdfjs();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await (await loadUnpdf()).getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    throw new Error(`pdfToText: not a readable PDF (${err instanceof Error ? err.message : String(err)})`, {
      cause: err,
    });
  }
  try {
    if (pdf.numPages > l.maxPages)
      throw new ParseLimitError('pages', `the PDF has ${pdf.numPages} pages (at most ${l.maxPages})`);
    const pages: string[] = [];
    let total = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const text = await pageText(await pdf.getPage(n), n, l, total);
      total += text.length;
      const tidy = tidyPage(text);
      if (tidy !== '') pages.push(tidy);
    }
    return { text: pages.join('\n\n'), pages: pdf.numPages };
  } finally {
    await pdf.destroy();
  }
}

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<typeof getDocumentProxy>>['getPage']>>;

/**
 * One page's text, as unpdf's `extractText` joins it (each item's string, a line break after
 * an item that ends a line), read from pdf.js's text stream batch by batch: past
 * `maxTextChars` on the page, or `maxDocumentChars` with the pages before it (`before`
 * characters), the stream is cancelled and the document refused.
 */
async function pageText(page: PdfPage, n: number, l: PdfTextLimits, before: number): Promise<string> {
  const maxChars = l.maxTextChars;
  const reader = page.streamTextContent().getReader();
  const parts: string[] = [];
  let chars = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const item of (value as { items: Array<{ str?: string; hasEOL?: boolean }> }).items) {
        if (item.str == null) continue;
        const part = item.hasEOL ? `${item.str}\n` : item.str;
        chars += part.length;
        if (chars > maxChars)
          throw new ParseLimitError(
            'size',
            `page ${n} of the PDF holds more than ${maxChars.toLocaleString('en-US')} characters of text`,
          );
        if (before + chars > l.maxDocumentChars)
          throw new ParseLimitError(
            'size',
            `the PDF holds more than ${l.maxDocumentChars.toLocaleString('en-US')} characters of text`,
          );
        parts.push(part);
      }
    }
  } finally {
    // Not `cancel()`: pdf.js's side of the stream would then enqueue into a closed controller
    // and throw where nobody catches it. The caller's `pdf.destroy()` ends the page's work.
    reader.releaseLock();
    page.cleanup();
  }
  return parts.join('');
}
