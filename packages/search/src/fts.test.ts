import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ftsPhrase,
  ftsSplitExpressions,
  mergeSplitRankings,
  type RankedRow,
  rankSplitTerms,
  rareOnlyExpressions,
  splitTermsByFrequency,
  type TermSplit,
} from './fts.js';
import { seededRandom as rng } from './testing.js';

const counts = (df: Record<string, number>) => (t: string) => df[t] ?? 0;
const idf = (rows: number, hits: number) => Math.max(1e-6, Math.log((rows - hits + 0.5) / (hits + 0.5)));

describe('splitTermsByFrequency', () => {
  const df = counts({ zebra: 40, quartz: 1500, server: 9000, config: 12_000, the: 70_000 });

  it('splits rare from common terms, leaving out terms in no row and in most rows', () => {
    const s = splitTermsByFrequency(['server', 'zebra', 'nowhere', 'the', 'quartz', 'config'], df, 100_000);
    expect(s).toMatchObject({ rare: ['zebra', 'quartz'], common: ['server', 'config'] });
    expect(s!.rareBound).toBeCloseTo(2.2 * (idf(100_000, 40) + idf(100_000, 1500)), 9);
  });

  it('takes the two rarest terms when none is rare', () => {
    const common = counts({ config: 12_000, server: 9000, client: 7000, the: 70_000 });
    expect(splitTermsByFrequency(['config', 'server', 'the', 'client'], common, 100_000)).toMatchObject({
      rare: ['client', 'server'],
      common: ['config'],
    });
  });

  it('keeps the rarest of the terms in most rows when nothing else is left', () => {
    const few = counts({ fail: 60_000, set: 80_000 });
    expect(splitTermsByFrequency(['set', 'fail'], few, 100_000)).toMatchObject({
      rare: ['fail'],
      common: [],
    });
  });

  it('does not split (or drop) terms that match few rows in all', () => {
    const small = counts({ a1: 3, b2: 9, c3: 14 });
    expect(splitTermsByFrequency(['a1', 'b2', 'c3'], small, 20)).toMatchObject({
      rare: ['a1', 'b2', 'c3'],
      common: [],
    });
    expect(
      splitTermsByFrequency(['a1', 'b2', 'c3'], small, 20, { minMatches: 10, rareShare: 0.2 }),
    ).toMatchObject({
      rare: ['a1'],
      common: ['b2'],
    });
  });

  it('handles a single term, duplicates, and no term in any row', () => {
    expect(splitTermsByFrequency(['server'], df, 100_000)).toMatchObject({ rare: ['server'], common: [] });
    expect(splitTermsByFrequency(['zebra', 'zebra', 'config'], df, 100_000)).toMatchObject({
      rare: ['zebra'],
      common: ['config'],
    });
    expect(splitTermsByFrequency(['nowhere', 'nothing'], df, 100_000)).toBeNull();
    expect(splitTermsByFrequency([], df, 100_000)).toBeNull();
  });

  it('bounds the rare terms’ score with the table’s row count when the rows are one owner’s', () => {
    const own = splitTermsByFrequency(['zebra', 'config'], df, 100_000)!;
    const table = splitTermsByFrequency(['zebra', 'config'], df, 100_000, { tableRows: 1_000_000 })!;
    expect(table.rare).toEqual(own.rare);
    expect(table.rareBound).toBeGreaterThan(own.rareBound);
  });
});

describe('ftsSplitExpressions', () => {
  it('ranks R AND (C), then R; only R without common terms; quotes every term', () => {
    const split: TermSplit = { rare: ['a"b', 'c'], common: ['d', 'e'], rareBound: 1 };
    expect(ftsSplitExpressions(split)).toEqual(['("a""b" OR "c") AND ("d" OR "e")', '("a""b" OR "c")']);
    expect(ftsSplitExpressions({ ...split, common: [] }, 'agent:"x"')).toEqual([
      'agent:"x" AND ("a""b" OR "c")',
    ]);
    expect(ftsPhrase('NEAR(x')).toBe('"NEAR(x"');
  });
});

describe('rareOnlyExpressions', () => {
  const split: TermSplit = { rare: ['a', 'b', 'c'], common: ['d'], rareBound: 12, rareBounds: [2, 6, 4] };

  it('ranks a rare term alone only when its bound exceeds the threshold, and the rows holding two or more', () => {
    // b (6) alone can pass 5; a (2) and c (4) need another rare term; c AND (a) can reach 6 > 5.
    expect(rareOnlyExpressions(split, 5)).toEqual(['"b"', '"b" AND ("c" OR "a")', '"c" AND ("a")']);
    // Past 6, b needs company too; c with a reaches 6 at most, so not past 6.5.
    expect(rareOnlyExpressions(split, 6.5, 'agent:"x"')).toEqual(['agent:"x" AND "b" AND ("c" OR "a")']);
  });

  it('is null (rank R whole) when every rare term may reach the threshold alone, or without bounds', () => {
    expect(rareOnlyExpressions(split, 1.5)).toBeNull();
    expect(rareOnlyExpressions({ ...split, rareBounds: undefined }, 5)).toBeNull();
  });
});

describe('mergeSplitRankings', () => {
  it('keeps a row’s best rank of all rankings, orders by rank then id, and cuts at the limit', () => {
    const withCommon = [
      { id: 7, rank: -9 },
      { id: 3, rank: -5 },
    ];
    const rareOnly = [
      { id: 4, rank: -6 },
      { id: 7, rank: -2 },
      { id: 1, rank: -5 },
      { id: 9, rank: -1 },
    ];
    expect(mergeSplitRankings([withCommon, rareOnly], 4)).toEqual([
      { id: 7, rank: -9 },
      { id: 4, rank: -6 },
      { id: 1, rank: -5 },
      { id: 3, rank: -5 },
    ]);
    // A row's partial score in one ranking and its full score in another: the better one counts.
    expect(mergeSplitRankings([withCommon, rareOnly, [{ id: 9, rank: -7 }]], 3)).toEqual([
      { id: 7, rank: -9 },
      { id: 9, rank: -7 },
      { id: 4, rank: -6 },
    ]);
    expect(mergeSplitRankings([rareOnly], 0)).toEqual([]);
  });
});

describe('rankSplitTerms on an FTS5 table', () => {
  const db = createClient({ url: ':memory:' });
  const ROWS = 3000;
  // A Zipf-like vocabulary: w0 is in most rows, w200 in a handful.
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const r = rng(42);
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(1 / (r() + 0.0025)) - 1)]!;
  const df = new Map<string, number>();
  const BM25 = 'bm25(docs, 1.0, 3.0)';

  beforeAll(async () => {
    await db.execute('create virtual table docs using fts5(body, title)');
    const rows: string[][] = [];
    for (let i = 0; i < ROWS; i++) {
      rows.push([Array.from({ length: 8 + Math.floor(r() * 30) }, word).join(' '), `${word()} ${word()}`]);
    }
    for (let i = 0; i < rows.length; i += 500) {
      const part = rows.slice(i, i + 500);
      await db.execute({
        sql: `insert into docs (body, title) values ${part.map(() => '(?, ?)').join(', ')}`,
        args: part.flat(),
      });
    }
    for (const w of vocabulary) {
      const [row] = (
        await db.execute({ sql: 'select count(*) as n from docs where docs match ?', args: [ftsPhrase(w)] })
      ).rows;
      df.set(w, Number(row?.n ?? 0));
    }
  });
  afterAll(() => db.close());

  const rank = (calls: string[], limit: number) => async (expr: string) => {
    calls.push(expr);
    const res = await db.execute({
      sql: `select rowid as id, ${BM25} as rank from docs where docs match ? order by rank, rowid limit ?`,
      args: [expr, limit],
    });
    return res.rows.map((x) => ({ id: Number(x.id), rank: Number(x.rank) }));
  };

  /** The OR of every kept term, ranked among the rows holding a rare term: what the split must equal. */
  const reference = async (split: TermSplit, limit: number): Promise<RankedRow[]> => {
    const all = [...split.rare, ...split.common].map(ftsPhrase).join(' OR ');
    const res = await db.execute({
      sql: `select rowid as id, ${BM25} as rank from docs where docs match ?
            and rowid in (select rowid from docs where docs match ?) order by rank, rowid limit ?`,
      args: [all, split.rare.map(ftsPhrase).join(' OR '), limit],
    });
    return res.rows.map((x) => ({ id: Number(x.id), rank: Number(x.rank) }));
  };

  it('ranks the rows holding a rare term exactly as the OR of all terms does', async () => {
    const q = rng(7);
    let skipped = 0;
    let split2 = 0;
    let narrowed = 0;
    for (let n = 0; n < 150; n++) {
      const terms = Array.from(
        { length: 2 + Math.floor(q() * 5) },
        () => vocabulary[Math.floor(q() * q() * 250)]!,
      );
      const split = splitTermsByFrequency(terms, (t) => df.get(t) ?? 0, ROWS, { minMatches: 100 });
      if (!split) continue;
      for (const limit of [1, 5, 30]) {
        const calls: string[] = [];
        const got = await rankSplitTerms(split, limit, rank(calls, limit));
        const want = await reference(split, limit);
        expect(got!.map((x) => x.id)).toEqual(want.map((x) => x.id));
        for (const [i, row] of got!.entries()) expect(row.rank).toBeCloseTo(want[i]!.rank, 9);
        if (split.common.length && calls.length === 1) skipped++;
        if (calls.length >= 2) split2++;
        if (calls.length >= 2 && calls[1] !== ftsSplitExpressions(split)[1]) narrowed++;
      }
    }
    // Every way was taken: the second ranking skipped by the bound, run on all of R, and run
    // only on the rows of R that could reach the threshold.
    expect(skipped).toBeGreaterThan(0);
    expect(split2).toBeGreaterThan(narrowed);
    expect(narrowed).toBeGreaterThan(0);
  });

  it('with exactTop, keeps the best exactTop rows exact and skips the second ranking more often', async () => {
    const q = rng(11);
    let spared = 0;
    for (let n = 0; n < 150; n++) {
      const terms = Array.from(
        { length: 2 + Math.floor(q() * 5) },
        () => vocabulary[Math.floor(q() * q() * 250)]!,
      );
      const split = splitTermsByFrequency(terms, (t) => df.get(t) ?? 0, ROWS, { minMatches: 100 });
      if (!split) continue;
      const full: string[] = [];
      await rankSplitTerms(split, 5, rank(full, 5));
      const calls: string[] = [];
      const got = await rankSplitTerms(split, 5, rank(calls, 5), undefined, 1);
      const want = await reference(split, 5);
      expect(got!.slice(0, 1).map((x) => x.id)).toEqual(want.slice(0, 1).map((x) => x.id));
      // Below the exact top, rows of `R AND (C)` with their full score (the same as the reference where it has them).
      const wanted = new Map(want.map((x) => [x.id, x.rank]));
      for (const row of got!.slice(1))
        if (wanted.has(row.id)) expect(row.rank).toBeCloseTo(wanted.get(row.id)!, 9);
      expect(got!.length).toBe(want.length);
      if (calls.length < full.length) spared++;
    }
    expect(spared).toBeGreaterThan(0);
  });

  it('gives up when a ranking does', async () => {
    const split: TermSplit = { rare: ['w150'], common: ['w3'], rareBound: Number.POSITIVE_INFINITY };
    expect(await rankSplitTerms(split, 5, async () => null)).toBeNull();
    let calls = 0;
    const secondGivesUp = async () => (calls++ === 0 ? [{ id: 1, rank: -1 }] : null);
    expect(await rankSplitTerms(split, 5, secondGivesUp)).toBeNull();
    expect(calls).toBe(2);
  });
});
