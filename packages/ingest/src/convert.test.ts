import { splitDocument } from '@lore/search';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html.js';
import { convertHtml, ParserPool, pdfToText } from './isolate.js';
import { DEFAULT_PARSE_LIMITS, ParseLimitError } from './limits.js';

describe('htmlToMarkdown', () => {
  it('converts a page to Markdown with ATX headings and fenced code, dropping chrome', () => {
    const html = `<!doctype html>
<html><head><title> Lore &amp; Agents </title><style>body{color:red}</style>
<script>window.track("secret-script")</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>
<h1>Getting started</h1>
<p>Lore stores <strong>knowledge</strong> as chunks &lt;per agent&gt;.</p>
<h2>Install</h2>
<ul><li>Clone</li><li>Run</li></ul>
<pre><code class="language-sh">pnpm install
pnpm dev
</code></pre>
<footer>© footer text</footer>
</body></html>`;
    const { title, markdown } = htmlToMarkdown(html);
    expect(title).toBe('Lore & Agents');
    expect(markdown).toContain('# Getting started');
    expect(markdown).toContain('## Install');
    expect(markdown).toContain('Lore stores **knowledge** as chunks <per agent>.');
    expect(markdown).toMatch(/-\s+Clone/);
    expect(markdown).toContain('```sh\npnpm install\npnpm dev\n```');
    for (const gone of ['secret-script', 'color:red', 'Home', 'footer text', 'Lore & Agents']) {
      expect(markdown).not.toContain(gone);
    }
  });

  it('falls back to the first h1 for the title, else null', () => {
    expect(htmlToMarkdown('<h1>Only heading</h1><p>x</p>').title).toBe('Only heading');
    expect(htmlToMarkdown('<p>No title here</p>')).toEqual({ title: null, markdown: 'No title here' });
    // No state leaks from one call to the next.
    htmlToMarkdown('<title>First</title><p>a</p>');
    expect(htmlToMarkdown('<p>b</p>').title).toBeNull();
  });

  it('feeds the markdown splitter', async () => {
    const { markdown } = htmlToMarkdown('<h1>A</h1><p>one</p><h2>B</h2><p>two</p>');
    const chunks = await splitDocument(markdown, { format: 'markdown' });
    expect(chunks.map((c) => c.headingPath)).toEqual([['A'], ['A', 'B']]);
  });
});

describe('htmlToMarkdown bounds', () => {
  it('expands nothing: entities, a huge attribute and escapes stay within the size of the page', () => {
    const entities = `<p>${'&amp;&lt;&#x1F600;&NotEqualTilde;'.repeat(20_000)}</p>`;
    const attribute = `<p><a href="https://example.com/${'a'.repeat(500_000)}" title="${'t'.repeat(300_000)}">x</a></p>`;
    const escapes = `<p>${'*_`[]#+-!'.repeat(50_000)}</p>`;
    for (const html of [entities, attribute, escapes]) {
      const { markdown } = htmlToMarkdown(html);
      expect(markdown.length).toBeLessThanOrEqual(html.length * 2);
    }
  });

  it('refuses a page, or its Markdown, over the document limit, naming the figure', async () => {
    const page = `<p>${'word '.repeat(2_000)}</p>`;
    expect(() => htmlToMarkdown(page, 256, 5_000)).toThrow(
      /the HTML page holds 10,007 characters of text \(at most 5,000\)/,
    );
    // Escapes double it: the page is within the limit, its Markdown is not.
    const stars = `<p>${'*'.repeat(6_000)}</p>`;
    const err = (() => {
      try {
        htmlToMarkdown(stars, 256, 10_000);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ParseLimitError);
    expect((err as ParseLimitError).limit).toBe('size');
    expect((err as Error).message).toMatch(/the Markdown of the HTML page holds 12,000 characters/);
    const small = new ParserPool({ ...DEFAULT_PARSE_LIMITS, maxDocumentChars: 5_000 }, 1);
    try {
      const refused = await convertHtml(page, small).catch((e: unknown) => e);
      expect((refused as ParseLimitError).limit).toBe('size');
    } finally {
      await small.close();
    }
  });
});

describe('pdfToText', () => {
  async function twoPagePdf(): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const pages = [
      ['Lore is a knowledge network for agents.', 'Each agent keeps its own searchable notes.'],
      ['Answers cite the passages they draw on.', 'Peers can ask each other questions.'],
    ];
    for (const lines of pages) {
      const page = doc.addPage([420, 300]);
      lines.forEach((line, i) => {
        page.drawText(line, { x: 30, y: 250 - i * 20, size: 12, font });
      });
    }
    return doc.save();
  }

  it('extracts the text of every page on this Node version', async () => {
    const bytes = await twoPagePdf();
    const size = bytes.byteLength;
    const { text, pages } = await pdfToText(bytes);
    expect(pages).toBe(2);
    expect(text).toContain('Lore is a knowledge network for agents.');
    expect(text).toContain('Each agent keeps its own searchable notes.');
    expect(text).toContain('Answers cite the passages they draw on.');
    expect(text.indexOf('Peers can ask')).toBeGreaterThan(text.indexOf('Lore is a knowledge'));
    // Pages are separated by a blank line.
    expect(text).toMatch(/notes\.\n\nAnswers/);
    // The caller's bytes are not detached by pdf.js.
    expect(bytes.byteLength).toBe(size);
    expect((await pdfToText(bytes)).text).toBe(text);
  });

  it('rejects bytes that are not a PDF', async () => {
    await expect(pdfToText(new TextEncoder().encode('hello, not a pdf'))).rejects.toThrow(
      /not a readable PDF/,
    );
  });
});
