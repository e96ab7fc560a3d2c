/**
 * The parser process holds what a thread could not: a PDF whose one stream inflates to a 700 MiB
 * string, read with the scan set aside, ends its parser process and nothing else. Several seconds
 * of a core inflating it, so this file is in `pnpm test:slow` (vitest.tiers.ts); the pool's other
 * limits are src/isolate.test.ts.
 */
import { inflatedStringPdf } from '@lore/kit/testing';
import { describe, expect, it } from 'vitest';
import { convertHtml, ParserPool, pdfToText } from './isolate.js';
import { DEFAULT_PARSE_LIMITS, ParseLimitError } from './limits.js';

describe('containment', () => {
  // The scan that refuses it first is set aside: what is measured is the parser process alone.
  const unscanned = {
    ...DEFAULT_PARSE_LIMITS,
    maxStreamBytes: 2 ** 31,
    maxInflatedBytes: 2 ** 31,
    maxTextChars: 2 ** 31,
    maxDocumentChars: 2 ** 31,
    memoryMb: 128,
    timeMs: 2_000,
    wallMs: 6_000,
  };

  it('a PDF that inflates to a 700 MiB string, unscanned, ends its parser process and nothing else', async () => {
    const contained = new ParserPool(unscanned, 1, 30_000, 'process');
    try {
      const bomb = await inflatedStringPdf({ inflatedMib: 700 });
      let ticks = 0;
      const tick = setInterval(() => ticks++, 50);
      const started = performance.now();
      const err = await pdfToText(bomb, contained).catch((e: unknown) => e);
      const ms = performance.now() - started;
      clearInterval(tick);
      expect(err).toBeInstanceOf(ParseLimitError);
      process.stderr.write(
        `700 MiB string PDF, unscanned, in a parser process: refused by ${(err as ParseLimitError).limit} after ${ms.toFixed(0)} ms\n`,
      );
      expect(['time', 'memory']).toContain((err as ParseLimitError).limit);
      // This process kept its event loop turning all along, and the pool parses again.
      expect(ticks).toBeGreaterThan((ms / 50) * 0.5);
      expect((await convertHtml('<p>after</p>', contained)).markdown).toBe('after');
    } finally {
      await contained.close();
    }
  }, 60_000);
});
