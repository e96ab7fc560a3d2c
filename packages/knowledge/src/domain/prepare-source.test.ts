import { readFileSync } from 'node:fs';
import { keywords, splitDocument, stem, tokenize } from '@lore/search';
import { describe, expect, it } from 'vitest';
import { passageText, SOURCE_KEYWORDS } from './knowledge-types.js';
import { type PreparedPart, streamSource } from './prepare-source.js';
import { indexTerms } from './search-terms.js';

/** What the preparation computed before its terms were stemmed in one pass (`stemmedText`). */
async function previous(text: string, format: 'markdown' | 'text') {
  const pieces = await splitDocument(text, { format });
  return {
    pieces,
    keywords: keywords(text, SOURCE_KEYWORDS),
    terms: pieces.map((p) => tokenize(passageText(p.headingPath, p.text)).map(stem).join(' ')),
  };
}

// Real documents of this repository: prose, tables, code, paths, numbers, non-ASCII.
const documents = ['../../../../BENCHMARKS.md', '../../../../README.md', '../../README.md'].map((p) =>
  readFileSync(new URL(p, import.meta.url), 'utf8'),
);

/** The parts `streamSource` sends, and what it returns. */
async function streamed(text: string, format: 'markdown' | 'text', maxNesting = 256) {
  const parts: PreparedPart[] = [];
  const end = await streamSource(text, format, maxNesting, (p) => parts.push(p));
  return { parts, end };
}

describe('streamSource', () => {
  it('sends the same pieces and terms as before, in consecutive parts, then the keywords', async () => {
    for (const text of documents) {
      for (const format of ['markdown', 'text'] as const) {
        const before = await previous(text, format);
        const { parts, end } = await streamed(text, format);
        expect(end).toEqual({ keywords: before.keywords, chunks: before.pieces.length });
        expect(parts.flatMap((p) => p.texts)).toEqual(before.pieces.map((p) => p.text));
        expect(parts.flatMap((p) => p.headings)).toEqual(
          before.pieces.map((p) => JSON.stringify(p.headingPath)),
        );
        expect(parts.flatMap((p) => p.terms)).toEqual(before.terms);
        expect(parts.flatMap((p) => p.lengths)).toEqual(
          before.terms.map((t) => (t ? t.split(' ').length : 0)),
        );
        // Small first, then doubling: the writes start early without a statement per piece.
        expect(parts.map((p) => p.start)).toEqual(
          parts.map((_, i) => parts.slice(0, i).reduce((n, q) => n + q.texts.length, 0)),
        );
        expect(parts.slice(0, -1).map((p) => p.texts.length)).toEqual(
          parts.slice(0, -1).map((_, i) => Math.min(400, 8 * 2 ** i)),
        );
      }
    }
  });

  it('indexes tokens as tokenize and stem do, whatever the characters', () => {
    const odd = [
      '',
      '   ',
      '—',
      'Crème Brûlée, naïve café façades; ÉCOLES',
      'developments developing developed computers 3.14 v2 x86_64 ok',
      '日本語のテキスト 𝒳𝒴 emoji 🎉 mixed-case CamelCase snake_case',
      'a / b\nc\td',
    ];
    for (const t of odd) expect(indexTerms(t)).toBe(tokenize(t).map(stem).join(' '));
  });

  it('refuses Markdown nested deeper than the limit before splitting it, sending nothing', async () => {
    const nested = Array.from({ length: 50 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n');
    const parts: PreparedPart[] = [];
    await expect(streamSource(nested, 'markdown', 10, (p) => parts.push(p))).rejects.toThrow(/nest/);
    expect(parts).toEqual([]);
  });
});
