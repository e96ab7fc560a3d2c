import { describe, expect, it } from 'vitest';
import { scanSensitive } from './secrets.js';
import { ORDINARY, SENSITIVE } from './sensitive-corpus.js';

describe('the sensitive-data scanner on its corpus', () => {
  it('holds enough of each', () => {
    expect(SENSITIVE.length).toBeGreaterThanOrEqual(100);
    expect(ORDINARY.length).toBeGreaterThanOrEqual(100);
  });

  it('flags every realistic secret and piece of personal data, as its kind (missed: 0)', async () => {
    const missed: string[] = [];
    for (const [text, kind] of SENSITIVE) {
      const found = await scanSensitive(text);
      if (!found.some((f) => f.kind === kind))
        missed.push(`${kind}: ${JSON.stringify(text)} → ${found.map((f) => f.rule).join(', ') || 'nothing'}`);
    }
    console.info(`sensitive corpus: ${SENSITIVE.length - missed.length} of ${SENSITIVE.length} flagged`);
    expect(missed).toEqual([]);
  });

  it('leaves ordinary sentences alone (false positives at most 5 %)', async () => {
    const flagged: string[] = [];
    for (const text of ORDINARY) {
      const found = await scanSensitive(text);
      if (found.length) flagged.push(`${JSON.stringify(text)} → ${found.map((f) => f.rule).join(', ')}`);
    }
    console.info(
      `ordinary corpus: ${flagged.length} of ${ORDINARY.length} flagged${flagged.length ? `:\n${flagged.join('\n')}` : ''}`,
    );
    expect(flagged.length / ORDINARY.length).toBeLessThanOrEqual(0.05);
  });
});
