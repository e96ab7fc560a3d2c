import { join } from 'node:path';
import { databaseFor } from '@lore/kit';
import { type Database, migrationsFolder, openDatabase } from '@lore/kit/db';
import { seededRandom as rng, tempDir, testConfig } from '@lore/kit/testing';
import { ftsPhrase, type TermSplit } from '@lore/search';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../tables.js';
import { clearMeaningLeader, DocsSearch, RERANK_DEPTH } from './search.js';
import { BM25_WEIGHTS, DocsStore, type DocumentWrite } from './store.js';

// Letters only (the tokenizer would split "w12"), ending in x (which the stemmer leaves alone).
const WORDS = Array.from(
  { length: 600 },
  (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
);
/** Cumulative Zipf weights (s = 1) over WORDS. */
const CDF = (() => {
  const w = WORDS.map((_, i) => 1 / (i + 1));
  const total = w.reduce((a, b) => a + b, 0);
  let sum = 0;
  return w.map((x) => (sum += x / total));
})();

describe('DocsSearch on a corpus large enough to split query terms', () => {
  const dir = tempDir();
  let db: Database;
  let store: DocsStore;
  let search: DocsSearch;
  const r = rng(11);
  // The first words are in most chunks, the last in a few dozen.
  const word = () => {
    const u = r();
    return WORDS[
      Math.min(
        WORDS.length - 1,
        CDF.findIndex((c) => c >= u),
      )
    ]!;
  };
  const bm25 = sql.raw(`bm25(chunks_fts, ${BM25_WEIGHTS.join(', ')})`);

  beforeAll(async () => {
    db = await openDatabase({
      ...databaseFor(testConfig(join(dir.path, 'docs')), 'docs'),
      schema: tables,
      migrationsFolder: migrationsFolder(new URL('../x.ts', import.meta.url).href),
    });
    store = new DocsStore(db);
    const docs: DocumentWrite[] = Array.from({ length: 400 }, (_, d) => ({
      name: `documents/test/d${d}`,
      uri: `https://test.example/d${d}`,
      title: `${word()} ${word()}`,
      description: '',
      content: '',
      dataSource: d % 10 === 0 ? 'rare-source' : 'main',
      contentHash: String(d),
      updateTime: 0,
      replaces: false,
      chunks: Array.from({ length: 10 }, (_, ordinal) => ({
        ordinal,
        headingPath: [word()],
        text: Array.from({ length: 20 + Math.floor(r() * 40) }, word).join(' '),
      })),
    }));
    await db.transaction(async (tx) => {
      await store.writeDocuments(tx, docs);
      await store.bumpGeneration(tx);
    });
    search = new DocsSearch(store, null);
  });
  afterAll(() => {
    db.$client.close();
    dir.cleanup();
  });

  /** The OR of every kept term, ranked among the chunks holding a rare term (and passing the filter). */
  async function reference(split: TermSplit, filter: SQL | null, limit: number): Promise<number[]> {
    const all = [...split.rare, ...split.common].map(ftsPhrase).join(' OR ');
    const rare = split.rare.map(ftsPhrase).join(' OR ');
    const rows = await db.all<{ id: number }>(sql`
      select c.id as id from chunks_fts
      cross join chunks c on c.id = chunks_fts.rowid
      cross join documents d on d.name = c.document
      where chunks_fts match ${all} and chunks_fts.rowid in (select rowid from chunks_fts where chunks_fts match ${rare})
        ${filter ? sql`and ${filter}` : sql``}
      order by ${bm25}, c.id limit ${limit}`);
    return rows.map((x) => Number(x.id));
  }

  /** Questions of a few common words and, mostly, one or two rare ones (some with none, some of one word). */
  let questions: string[] = [];
  beforeAll(async () => {
    const df = await store.termCounts(WORDS);
    const rare = WORDS.filter((w) => df.get(w)! > 0 && df.get(w)! <= 80);
    // Three or more of these match at least 2000 chunks in all: the terms get split.
    const common = WORDS.filter((w) => df.get(w)! >= 700 && df.get(w)! < 2000);
    const q = rng(5);
    const pick = (ws: string[], n: number) =>
      Array.from({ length: n }, () => ws[Math.floor(q() * ws.length)]!);
    questions = Array.from({ length: 24 }, (_, i) =>
      [...pick(rare, i % 8 === 0 ? 0 : 1 + (i % 2)), ...pick(common, i % 10 === 1 ? 0 : 3 + (i % 3))].join(
        ' ',
      ),
    );
  });

  it('splits the terms of most questions here', async () => {
    let split = 0;
    for (const question of questions) if ((await search.rankingTerms(question))?.common.length) split++;
    expect(split).toBeGreaterThan(questions.length / 2);
  });

  it('ranks and pages its BM25 stage as the OR of the terms does among the chunks holding a rare term', async () => {
    for (const question of questions) {
      const split = await search.rankingTerms(question);
      if (!split) continue;
      const want = await reference(split, null, 16);
      const pages: number[] = [];
      for (const offset of [0, 5, 10]) {
        const rows = await store.searchBm25(split, null, 6, offset);
        pages.push(...rows.slice(0, 5).map((h) => h.chunkId));
        expect(rows.length > 5).toBe(want.length > offset + 5);
      }
      expect(pages).toEqual(want.slice(0, 15));
    }
  });

  it('serves pages re-ordered from the best BM25 candidates, each chunk once', async () => {
    for (const question of questions) {
      const split = await search.rankingTerms(question);
      if (!split) continue;
      const candidates = new Set(await reference(split, null, RERANK_DEPTH));
      const served: number[] = [];
      for (const offset of [0, 5, 10]) {
        const page = await search.search({ query: question, filter: null, offset, limit: 5 });
        served.push(...page.hits.map((h) => h.chunkId));
      }
      expect(new Set(served).size).toBe(served.length);
      for (const id of served) expect(candidates.has(id)).toBe(true);
      expect(served.length).toBe(Math.min(15, candidates.size));
    }
  });

  it('does the same under a filter, selective or not', async () => {
    for (const filter of [sql`d.data_source = ${'rare-source'}`, sql`d.data_source = ${'main'}`]) {
      for (const question of questions.slice(0, 20)) {
        const split = await search.rankingTerms(question);
        if (!split) continue;
        const want = await reference(split, filter, 10);
        const rows = await store.searchBm25(split, filter, 10, 0);
        expect(rows.map((h) => h.chunkId)).toEqual(want);
        const page = await search.search({ query: question, filter, offset: 0, limit: 10 });
        const passing = new Set(await reference(split, filter, RERANK_DEPTH));
        for (const h of page.hits) expect(passing.has(h.chunkId)).toBe(true);
      }
    }
  });
});

describe('clearMeaningLeader', () => {
  const page: Record<string, string> = { a1: 'a', a2: 'a', b1: 'b', c1: 'c' };
  const pageOf = (id: string) => page[id];

  it('names the nearest chunk when it leads the nearest chunk of every other page by the lead', () => {
    const nearest = [
      { id: 'a1', score: 0.52 },
      { id: 'a2', score: 0.5 },
      { id: 'b1', score: 0.45 },
      { id: 'c1', score: 0.3 },
    ];
    expect(clearMeaningLeader(nearest, pageOf, 0.06)).toBe('a1');
    // The second chunk of the same page is no rival; the next page's is, and it is too close.
    expect(clearMeaningLeader(nearest, pageOf, 0.08)).toBeUndefined();
  });

  it('skips chunks the search does not serve, and leads by default on a one-page corpus', () => {
    const nearest = [
      { id: 'x9', score: 0.9 },
      { id: 'b1', score: 0.4 },
      { id: 'c1', score: 0.39 },
    ];
    expect(clearMeaningLeader(nearest, pageOf, 0.06)).toBeUndefined();
    expect(clearMeaningLeader(nearest.slice(0, 2), pageOf, 0.06)).toBe('b1');
    expect(clearMeaningLeader([], pageOf, 0.06)).toBeUndefined();
  });
});
