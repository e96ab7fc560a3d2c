import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuseRankings } from './fusion.js';

describe('fuseRankings', () => {
  it('puts an id both signals found above ids only one found, and names the signals', () => {
    const fused = fuseRankings([
      { signal: 'words', ids: ['a', 'b', 'c'] },
      { signal: 'meaning', ids: ['c', 'a', 'd'] },
    ]);
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(fused[0]).toEqual({ id: 'a', score: 1 / 61 + 1 / 62, signals: ['words', 'meaning'] });
    expect(fused[1]!.signals).toEqual(['words', 'meaning']);
    expect(fused[2]).toEqual({ id: 'b', score: 1 / 62, signals: ['words'] });
    expect(fused[3]).toEqual({ id: 'd', score: 1 / 63, signals: ['meaning'] });
  });

  it('counts an id repeated within a list once, at its best rank', () => {
    const fused = fuseRankings([{ signal: 'words', ids: ['x', 'x', 'y'] }], 0);
    expect(fused).toEqual([
      { id: 'x', score: 1, signals: ['words'] },
      { id: 'y', score: 1 / 3, signals: ['words'] },
    ]);
  });

  it('keeps first-seen order on ties and handles empty input', () => {
    const fused = fuseRankings([
      { signal: 'words', ids: ['p', 'q'] },
      { signal: 'meaning', ids: ['q', 'p'] },
    ]);
    expect(fused.map((f) => f.id)).toEqual(['p', 'q']);
    expect(fused[0]!.score).toBeCloseTo(fused[1]!.score);
    expect(fuseRankings([])).toEqual([]);
    expect(fuseRankings([{ signal: 'meaning', ids: [] }])).toEqual([]);
  });

  it('lets a smaller k favour the top of each list', () => {
    const lists = [
      { signal: 'words', ids: ['top', 'x1', 'x2', 'both'] },
      { signal: 'meaning', ids: ['y1', 'y2', 'y3', 'both'] },
    ];
    expect(fuseRankings(lists, 0)[0]!.id).toBe('top');
    expect(fuseRankings(lists, 60)[0]!.id).toBe('both');
  });

  it('weighs a list by its weight', () => {
    const lists = [
      { signal: 'words', ids: ['w'] },
      { signal: 'meaning', ids: ['m'], weight: 2 },
    ];
    expect(fuseRankings(lists)).toEqual([
      { id: 'm', score: 2 / 61, signals: ['meaning'] },
      { id: 'w', score: 1 / 61, signals: ['words'] },
    ]);
  });

  it('rejects a negative or non-finite k, naming it', () => {
    expect(() => fuseRankings([], -1)).toThrow(/k must be/);
    expect(() => fuseRankings([], Number.NaN)).toThrow(/k must be/);
  });

  it('holds every id once, best first, with each signal that listed it (property)', () => {
    const ids = fc.array(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 8 });
    fc.assert(
      fc.property(ids, ids, (w, m) => {
        const fused = fuseRankings([
          { signal: 'words', ids: w },
          { signal: 'meaning', ids: m },
        ]);
        expect(new Set(fused.map((f) => f.id))).toEqual(new Set([...w, ...m]));
        expect(fused.length).toBe(new Set([...w, ...m]).size);
        for (let i = 1; i < fused.length; i++)
          expect(fused[i - 1]!.score).toBeGreaterThanOrEqual(fused[i]!.score);
        for (const f of fused) {
          expect(f.signals.includes('words')).toBe(w.includes(f.id));
          expect(f.signals.includes('meaning')).toBe(m.includes(f.id));
        }
      }),
    );
  });
});
