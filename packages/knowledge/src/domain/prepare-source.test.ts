import { readFileSync } from 'node:fs';
import { keywords, splitDocument, stem, tokenize } from '@lore/search';
import { describe, expect, it } from 'vitest';
import { passageText, SOURCE_KEYWORDS } from './knowledge-types.js';
import { prepareSource } from './prepare-source.js';
import { indexTerms } from './search-terms.js';

/** What prepareSource computed before its terms were stemmed in one pass (`stemmedText`). */
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

describe('prepareSource', () => {
  it('gives the same pieces, keywords and terms as before on real documents', async () => {
    for (const text of documents) {
      for (const format of ['markdown', 'text'] as const) {
        const before = await previous(text, format);
        expect(await prepareSource(text, format, 256)).toEqual(before);
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

  it('refuses Markdown nested deeper than the limit before splitting it', async () => {
    const nested = Array.from({ length: 50 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n');
    await expect(prepareSource(nested, 'markdown', 10)).rejects.toThrow(/nest/);
  });
});
