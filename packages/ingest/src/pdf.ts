import type { getDocumentProxy } from 'unpdf';
import { ParseLimitError } from './limits.js';

// unpdf (and pdf.js) load on first use only.
let unpdfModule: Promise<typeof import('unpdf')> | undefined;
export const loadUnpdf = () => (unpdfModule ??= import('unpdf'));

let pdfjsLoaded: Promise<unknown> | undefined;

/**
 * Loads unpdf's bundled pdf.js once. Its modern build logs "Please use the `legacy` build
 * in Node.js environments." through console.log when the module is evaluated; text
 * extraction works on Node 20 regardless, so that one line is filtered while it loads.
 */
function loadPdfjs(): Promise<unknown> {
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

/**
 * Extracts the text layer of a PDF with unpdf (pdf.js), in the calling thread: hostile input
 * goes through `pdfToText`, which runs this in a worker under time and memory limits. Pages
 * are joined by a blank line and line breaks within a page are kept, so the result splits
 * well; scanned pages without a text layer yield nothing. The input is copied (pdf.js
 * detaches the buffer it is given). More than `maxPages` pages is refused before any is read.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<{ text: string; pages: number }> {
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
    if (pdf.numPages > maxPages)
      throw new ParseLimitError('pages', `the PDF has ${pdf.numPages} pages (at most ${maxPages})`);
    const { totalPages, text } = await (await loadUnpdf()).extractText(pdf, { mergePages: false });
    const pages = text.map(tidyPage).filter((p) => p !== '');
    return { text: pages.join('\n\n'), pages: totalPages };
  } finally {
    await pdf.destroy();
  }
}
