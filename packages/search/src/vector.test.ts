import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineTopK, float32FromBuffer, float32ToBuffer, reciprocalRankFusion } from './vector.js';

describe('float32 buffers', () => {
  it('round-trips through a Buffer', () => {
    const v = new Float32Array([0.5, -1.25, 3e-7, 42]);
    const b = float32ToBuffer(v);
    expect(Buffer.isBuffer(b)).toBe(true);
    expect(b.byteLength).toBe(16);
    expect([...float32FromBuffer(b)]).toEqual([...v]);
    v[0] = 9; // the buffer is a copy
    expect(float32FromBuffer(b)[0]).toBe(0.5);
  });

  it('views aligned buffers and copies misaligned ones', () => {
    const backing = new ArrayBuffer(24);
    new Float32Array(backing, 4, 2).set([1.5, 2.5]);
    const aligned = new Uint8Array(backing, 4, 8);
    const view = float32FromBuffer(aligned);
    expect(view.buffer).toBe(backing);
    expect([...view]).toEqual([1.5, 2.5]);

    const bytes = new Uint8Array(float32ToBuffer(new Float32Array([7, -8])));
    const odd = new Uint8Array(new ArrayBuffer(9)).subarray(1);
    odd.set(bytes);
    const copied = float32FromBuffer(odd);
    expect(copied.buffer).not.toBe(odd.buffer);
    expect([...copied]).toEqual([7, -8]);

    // A pooled Buffer like the ones libsql returns.
    const pooled = Buffer.concat([Buffer.alloc(3), float32ToBuffer(new Float32Array([0.25]))]).subarray(3);
    expect([...float32FromBuffer(pooled)]).toEqual([0.25]);

    expect([...float32FromBuffer(new Float32Array([1, 2]).buffer)]).toEqual([1, 2]);
    expect(() => float32FromBuffer(new Uint8Array(6))).toThrow(RangeError);
  });
});

describe('cosineTopK', () => {
  it('ranks by cosine similarity regardless of vector length', () => {
    const q = new Float32Array([1, 0]);
    const vectors = [
      { id: 'orth', vector: new Float32Array([0, 5]) },
      { id: 'same-long', vector: new Float32Array([10, 0]) },
      { id: 'diag', vector: new Float32Array([1, 1]) },
      { id: 'opposite', vector: new Float32Array([-1, 0]) },
      { id: 'zero', vector: new Float32Array([0, 0]) },
      { id: 'wrong-dim', vector: new Float32Array([1, 0, 0]) },
    ];
    const top = cosineTopK(q, vectors, 3);
    expect(top.map((t) => t.id)).toEqual(['same-long', 'diag', 'orth']);
    expect(top[0]!.score).toBeCloseTo(1);
    expect(top[1]!.score).toBeCloseTo(Math.SQRT1_2);
    expect(cosineTopK(q, vectors, 0)).toEqual([]);
    expect(cosineTopK(new Float32Array([0, 0]), vectors, 3)).toEqual([]);
  });

  it('matches a full sort (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 3, maxLength: 3 }), {
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 20 }),
        (rows, k) => {
          const q = new Float32Array([1, 2, -1]);
          const vectors = rows.map((r, i) => ({ id: `v${i}`, vector: new Float32Array(r) }));
          const qn = Math.hypot(...q);
          const expected = vectors
            .map((v, i) => {
              const n = Math.hypot(...v.vector);
              const dot = v.vector.reduce((s, x, j) => s + x * q[j]!, 0);
              return { id: v.id, score: n > 0 ? dot / (n * qn) : Number.NaN, i };
            })
            .filter((x) => !Number.isNaN(x.score))
            .sort((a, b) => b.score - a.score || a.i - b.i)
            .slice(0, k);
          const got = cosineTopK(q, vectors, k);
          expect(got.length).toBe(expected.length);
          for (const [i, g] of got.entries()) expect(g.score).toBeCloseTo(expected[i]!.score, 5);
        },
      ),
    );
  });

  it('scans 100k vectors of 256 dims quickly', () => {
    const dim = 256;
    let seed = 1;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    const vectors = Array.from({ length: 100_000 }, (_, i) => {
      const v = new Float32Array(dim);
      for (let j = 0; j < dim; j++) v[j] = rnd();
      return { id: `v${i}`, vector: v };
    });
    const q = vectors[1234]!.vector;
    const t0 = performance.now();
    const top = cosineTopK(q, vectors, 10);
    const ms = performance.now() - t0;
    expect(top[0]!.id).toBe('v1234');
    expect(top).toHaveLength(10);
    console.info(`cosineTopK: 100k x ${dim} in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1500);
  });
});

describe('reciprocalRankFusion', () => {
  it('fuses ranked lists by key', () => {
    const bm25 = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    const vec = [{ id: 'c' }, { id: 'a' }, { id: 'd' }];
    const fused = reciprocalRankFusion([bm25, vec], (x) => x.id, 60);
    expect(fused.map((f) => f.item.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62);
    expect(fused[0]!.item).toBe(bm25[0]);
  });

  it('counts duplicates within a list once and breaks ties by first appearance', () => {
    const fused = reciprocalRankFusion(
      [
        ['x', 'x', 'y'],
        ['y', 'x'],
      ],
      (s) => s,
    );
    expect(fused.map((f) => f.item)).toEqual(['x', 'y']);
    expect(fused[0]!.score).toBeCloseTo(fused[1]!.score);
    expect(reciprocalRankFusion([], (s: string) => s)).toEqual([]);
  });
});
