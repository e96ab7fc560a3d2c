import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerpt } from './excerpt.js';
import { keywords } from './keywords.js';
import { ftsMatchQuery, isContentTerm, queryTerms, STOP_WORDS, tokenize, tokenSpans } from './terms.js';

describe('STOP_WORDS', () => {
  it('holds about 170 lower-case words', () => {
    expect(STOP_WORDS.size).toBeGreaterThanOrEqual(160);
    expect(STOP_WORDS.size).toBeLessThanOrEqual(190);
    for (const w of STOP_WORDS) expect(w).toMatch(/^[a-z]+$/);
    for (const w of ['the', 'and', 'what', 'how', 'is', 'of']) expect(STOP_WORDS.has(w)).toBe(true);
  });
});

describe('queryTerms', () => {
  it('keeps a path segment written in the question even when it is a stop word', () => {
    expect(queryTerms('make /about/ and /about go to the same page')).toEqual([
      'make',
      'about',
      'go',
      'page',
    ]);
    expect(queryTerms('what is this about')).toEqual([]);
  });

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
    expect(queryTerms('/he', 1)).toEqual(['he']);
    expect(queryTerms('he said', 2)).toEqual(['said']);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 20 }), (s, n) => {
        const a = queryTerms(s, n);
        expect(a).toEqual(queryTerms(s, n));
        expect(a.length).toBeLessThanOrEqual(n);
        expect(new Set(a).size).toBe(a.length);
        // A stop word is kept only as a path segment written in the text (`/about/`).
        const pathSegments = new Set(
          tokenSpans(s)
            .filter((x) => s[x.start - 1] === '/')
            .map((x) => x.token),
        );
        for (const t of a) {
          if (STOP_WORDS.has(t)) expect(pathSegments.has(t), `${t} in ${JSON.stringify(s)}`).toBe(true);
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

// The definition the scanner in terms.ts implements, as a regex.
const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

/** Words mixing ASCII, accents (precomposed and combining), other scripts, astral letters and digits. */
const WORDS = [
  ...['vector', 'search', 'Vector', 'SEARCH', 'the', 'of', 'index', 'index', 'ab', 'k8s', '2024', '42'],
  ...['café', 'cafe\u0301', 'déjà', 'naïve', 'über', 'İstanbul', 'ǅemal', 'ΣΑΣ', '東京', '東京都', 'ﬃx'],
  ...['𝒜𝒷𝒸', 'x²', '٣٤٥', 'Ⅻ', '\u0301abc', 'a\ud800b', '\udc00', 'e\u0301t\u0301e'],
];
const SEPARATORS = [' ', ' ', ' ', '. ', ', ', '\n', '-', '_', '’', '—', '\t', '#', '\u00a0'];
const wordText = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 80 })
  .map((parts) => parts.map(([w, sep]) => w + sep).join(''));
const anyText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  wordText,
);

describe('tokenize and tokenSpans', () => {
  it('match the regex definition on any text (property)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(tokenize(text)).toEqual(text.toLowerCase().match(TOKEN) ?? []);
        expect(tokenSpans(text)).toEqual(
          [...text.matchAll(TOKEN)].map((m) => ({
            token: m[0].toLowerCase(),
            start: m.index,
            end: m.index + m[0].length,
          })),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('keep combining marks, astral letters and other scripts inside tokens', () => {
    expect(tokenize('Cafe\u0301 naïve 𝒜𝒷𝒸-x² 東京 \u0301lone ΣΑΣ a\ud800b')).toEqual([
      'cafe\u0301',
      'naïve',
      '𝒜𝒷𝒸',
      'x²',
      '東京',
      'lone',
      'σας',
      'a',
      'b',
    ]);
    expect(tokenSpans('Déjà vu')).toEqual([
      { token: 'déjà', start: 0, end: 4 },
      { token: 'vu', start: 5, end: 7 },
    ]);
  });
});

/** keywords() as first written: count everything, sort every candidate (the fast path's oracle). */
function keywordsByFullSort(text: string, n: number): string[] {
  const cap = Math.floor(n);
  if (!(cap > 0)) return [];
  const counts = new Map<string, { tf: number; first: number }>();
  const bump = (key: string, pos: number) => {
    const c = counts.get(key);
    if (c) c.tf++;
    else counts.set(key, { tf: 1, first: pos });
  };
  const bigrams = new Set<string>();
  let prev: string | null = null;
  let pos = 0;
  for (const token of text.toLowerCase().match(TOKEN) ?? []) {
    pos++;
    if (!isContentTerm(token) || [...token].length <= 2 || /^\p{N}+$/u.test(token)) {
      prev = null;
      continue;
    }
    bump(token, pos);
    if (prev !== null && prev !== token) {
      bump(`${prev} ${token}`, pos - 1);
      bigrams.add(`${prev} ${token}`);
    }
    prev = token;
  }
  const candidates = [...counts]
    .filter(([term, { tf }]) => !bigrams.has(term) || tf >= 2)
    .map(([term, { tf, first }]) => ({ term, tf, first, score: bigrams.has(term) ? tf * 1.5 : tf }))
    .sort((a, b) => b.score - a.score || a.first - b.first || (a.term < b.term ? -1 : 1));
  const hidden = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    if (out.length >= cap) break;
    if (hidden.has(c.term)) continue;
    if (bigrams.has(c.term))
      for (const part of c.term.split(' ')) if ((counts.get(part)?.tf ?? 0) <= c.tf) hidden.add(part);
    out.push(c.term);
  }
  return out;
}

describe('keywords', () => {
  it('agrees with the full sort on any text and any count (property)', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: -1, max: 30 }), (text, n) => {
        expect(keywords(text, n)).toEqual(keywordsByFullSort(text, n));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts a word before the phrase it starts when both score the same from the same place', () => {
    // "abc" 3 times (score 3) and "abc def" twice (score 2 × 1.5 = 3), both first at position 1.
    expect(keywords('abc def abc def abc', 3)).toEqual(['abc', 'abc def', 'def abc']);
    expect(keywords('xyz abc def abc def abc', 4)).toEqual(keywordsByFullSort('xyz abc def abc def abc', 4));
  });

  it('counts non-ASCII words, and leaves out short ones and numbers in any script', () => {
    const text = 'Café naïve café ΣΑΣ σας 東京 東京 ٣٤٥ ٣٤٥ x² x² über über über';
    expect(keywords(text, 5)).toEqual(['über', 'café', 'σας', 'naïve']);
    expect(keywords(text, 5)).toEqual(keywordsByFullSort(text, 5));
  });

  it('gives the same keywords for a large source as the full sort', () => {
    const words = 'configure server cache retry timeout cluster token session gateway proxy'.split(' ');
    const text = Array.from({ length: 20_000 }, (_, i) => words[(i * 7 + (i >> 3)) % words.length]).join(' ');
    expect(keywords(text, 8)).toEqual(keywordsByFullSort(text, 8));
  });

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
