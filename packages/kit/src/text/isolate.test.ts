import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { compressionBombPdf, deeplyNestedHtml } from '../testing/hostile.js';
import { htmlToMarkdown } from './html.js';
import { convertHtml, ParserPool, pdfToText } from './isolate.js';
import { DEFAULT_PARSE_LIMITS, htmlNestingDepth, ParseLimitError } from './limits.js';

const pool = new ParserPool({ ...DEFAULT_PARSE_LIMITS, timeMs: 1_500, memoryMb: 128 });
afterAll(() => pool.close());

describe('htmlNestingDepth', () => {
  it('counts element nesting, not void elements, comments or auto-closed siblings', () => {
    expect(htmlNestingDepth('<div><p>a<p>b<br><img src=x><ul><li>c<li>d</ul></div>')).toBe(2);
    expect(htmlNestingDepth('<!-- <div><div> --><span/>')).toBe(0);
    expect(htmlNestingDepth(deeplyNestedHtml(1000))).toBe(1002);
    expect(htmlNestingDepth(deeplyNestedHtml(1000), 10)).toBe(11);
  });
});

describe('parsing hostile documents in parser threads', () => {
  it('refuses 40,000 nested divs by their nesting, in the calling thread and in a worker', async () => {
    expect(() => htmlToMarkdown(deeplyNestedHtml())).toThrow(ParseLimitError);
    const err = await convertHtml(deeplyNestedHtml(), pool).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseLimitError);
    expect((err as ParseLimitError).limit).toBe('nesting');
    expect((err as Error).message).toMatch(/more than 256 deep/);
  });

  it('still converts ordinary pages in a worker', async () => {
    const { title, markdown } = await convertHtml('<title>T</title><h1>Head</h1><p>Body <b>x</b></p>', pool);
    expect(title).toBe('T');
    expect(markdown).toBe('# Head\n\nBody **x**');
  });

  it('refuses a PDF with more pages than the cap before reading them', async () => {
    const small = new ParserPool({ ...DEFAULT_PARSE_LIMITS, maxPages: 3 });
    try {
      const err = await pdfToText(compressionBombPdf({ inflatedMb: 1, pages: 5 }), small).catch((e) => e);
      expect(err).toBeInstanceOf(ParseLimitError);
      expect((err as ParseLimitError).limit).toBe('pages');
    } finally {
      await small.close();
    }
  });

  // The full measurement (two 64 MB bombs, other agents' latency) is packages/knowledge/test/ingest-bomb.test.ts.
  it('refuses a compression bomb by time or memory while the event loop stays responsive', async () => {
    const bomb = compressionBombPdf({ inflatedMb: 16, pages: 20 });
    expect(bomb.byteLength).toBeLessThan(400_000);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const results = await Promise.allSettled([pdfToText(bomb, pool), pdfToText(bomb, pool)]);
    delay.disable();
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(ParseLimitError);
      expect(['time', 'memory']).toContain((err as ParseLimitError).limit);
    }
    expect(performance.now() - started).toBeLessThan(10_000);
    // Milliseconds of event-loop delay at the 99th percentile while two bombs were parsed.
    expect(delay.percentile(99) / 1e6).toBeLessThan(100);
    // The pool replaced its threads and parses again.
    const ok = await convertHtml('<p>after</p>', pool);
    expect(ok.markdown).toBe('after');
  }, 30_000);
});
