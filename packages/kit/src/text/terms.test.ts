import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerpt, ftsMatchQuery, keywords, queryTerms, STOP_WORDS } from './terms.js';

describe('STOP_WORDS', () => {
  it('holds about 170 lower-case words', () => {
    expect(STOP_WORDS.size).toBeGreaterThanOrEqual(160);
    expect(STOP_WORDS.size).toBeLessThanOrEqual(190);
    for (const w of STOP_WORDS) expect(w).toMatch(/^[a-z]+$/);
    for (const w of ['the', 'and', 'what', 'how', 'is', 'of']) expect(STOP_WORDS.has(w)).toBe(true);
  });
});

describe('queryTerms', () => {
  it('lower-cases, drops stop words and 1-char tokens, dedupes, keeps order', () => {
    expect(queryTerms('How do I configure the Vector index? The vector INDEX, x y z!')).toEqual([
      'configure',
      'vector',
      'index',
    ]);
  });

  it('tokenizes unicode letters and digits', () => {
    expect(queryTerms('Café déjà-vu in 東京 with C3PO, v2 and über_cool')).toEqual([
      'café',
      'déjà',
      'vu',
      '東京',
      'c3po',
      'v2',
      'über',
      'cool',
    ]);
  });

  it('prefers longer and digit-bearing terms over the cap, in original order', () => {
    const terms = queryTerms('aa bbbbbbb cc dddd ee42 ffffff gg', 3);
    expect(terms).toEqual(['bbbbbbb', 'ee42', 'ffffff']);
    expect(queryTerms('one two three', 0)).toEqual([]);
  });

  it('is deterministic and bounded (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 20 }), (s, n) => {
        const a = queryTerms(s, n);
        expect(a).toEqual(queryTerms(s, n));
        expect(a.length).toBeLessThanOrEqual(n);
        expect(new Set(a).size).toBe(a.length);
        for (const t of a) {
          expect(STOP_WORDS.has(t)).toBe(false);
          expect([...t].length).toBeGreaterThan(1);
        }
      }),
    );
  });
});

describe('ftsMatchQuery', () => {
  it('ORs quoted terms', () => {
    expect(ftsMatchQuery('What is the rate limit for uploads?')).toBe('"rate" OR "limit" OR "uploads"');
  });

  it('neutralises FTS5 syntax and returns null when nothing is left', () => {
    expect(ftsMatchQuery('title:foo* NEAR(bar "baz) -qux')).toBe(
      '"title" OR "foo" OR "near" OR "bar" OR "baz" OR "qux"',
    );
    expect(ftsMatchQuery('what is the ?')).toBeNull();
    expect(ftsMatchQuery('')).toBeNull();
    expect(ftsMatchQuery('"" \'\' ***')).toBeNull();
  });

  it('always yields balanced quoted terms (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const q = ftsMatchQuery(s);
        if (q === null) return;
        expect(q).toMatch(/^"[^"]+"( OR "[^"]+")*$/);
      }),
    );
  });
});

describe('keywords', () => {
  it('ranks frequent content terms and boosts repeated phrases', () => {
    const text =
      'Vector search uses embeddings. Vector search is fast. Embeddings are stored as blobs. ' +
      'The search index also supports BM25 ranking. Ranking is hybrid.';
    const k = keywords(text, 4);
    expect(k[0]).toBe('vector search');
    expect(k).toContain('embeddings');
    expect(k).toContain('ranking');
    expect(k).not.toContain('vector');
    expect(keywords(text, 4)).toEqual(k);
  });

  it('ignores stop words, short tokens and numbers', () => {
    expect(keywords('the the the of of 2024 2024 ab ab apples', 3)).toEqual(['apples']);
    expect(keywords('', 3)).toEqual([]);
  });
});

describe('excerpt', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`).join(' ');

  it('returns short text whole, whitespace collapsed', () => {
    expect(excerpt('  a  short\n\ntext ', ['short'])).toBe('a short text');
  });

  it('finds the most term-dense window and marks cuts', () => {
    const text = `${filler(60)} the quota for uploads is 10 GB per agent and the upload quota resets monthly ${filler(60)}`;
    const e = excerpt(text, ['quota', 'uploads'], 120);
    expect(e.length).toBeLessThanOrEqual(120);
    expect(e.startsWith('…')).toBe(true);
    expect(e.endsWith('…')).toBe(true);
    expect(e).toContain('quota for uploads is 10 GB');
    // Cut at word boundaries: no partial filler word at either end.
    const inner = e.slice(1, -1).split(' ');
    for (const w of [inner[0]!, inner.at(-1)!]) expect(text.split(/\s+/)).toContain(w);
  });

  it('prefers windows covering more distinct terms', () => {
    const text = `alpha alpha alpha alpha ${filler(40)} alpha beta gamma ${filler(40)}`;
    expect(excerpt(text, ['alpha', 'beta', 'gamma'], 80)).toContain('alpha beta gamma');
  });

  it('falls back to the start without matches', () => {
    const e = excerpt(filler(100), ['nothing'], 50);
    expect(e.startsWith('filler0 filler1')).toBe(true);
    expect(e.endsWith('…')).toBe(true);
    expect(e.length).toBeLessThanOrEqual(50);
  });

  it('never exceeds max (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 600 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 300 }),
        (text, terms, max) => {
          expect(excerpt(text, terms, max).length).toBeLessThanOrEqual(max);
        },
      ),
    );
  });
});
