import { describe, expect, it } from 'vitest';
import { cosine, cosineTopK } from './vector.js';
import { VectorMatrix } from './vector-matrix.js';

let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31 - 0.5;
};
/** Vectors of any length (not unit): the matrix scales them itself. */
const vector = (d: number) => Float32Array.from({ length: d }, () => random() * 3);

describe('VectorMatrix', () => {
  it('finds the rows cosineTopK finds, in its order, with the same scores', () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ id: String(i * 3), vector: vector(37) }));
    const m = new VectorMatrix(37, 8); // grows past its first capacity
    for (const it of items) m.add(Number(it.id), it.vector);
    expect(m.size).toBe(500);
    for (let q = 0; q < 20; q++) {
      const query = vector(37);
      const want = cosineTopK(query, items, 10);
      const got = m.nearest(query, 10);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => Number(h.id)));
      for (const [i, h] of got.entries()) expect(h.similarity).toBeCloseTo(want[i]!.score, 5);
    }
  });

  it('finds the same rows with the WebAssembly kernel (384 dimensions), growing past its first memory', () => {
    const items = Array.from({ length: 3_000 }, (_, i) => ({ id: String(i), vector: vector(384) }));
    const m = new VectorMatrix(384, 4);
    for (const it of items) m.add(Number(it.id), it.vector);
    for (let q = 0; q < 10; q++) {
      const query = vector(384);
      const want = cosineTopK(query, items, 30);
      const got = m.nearest(query, 30);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => Number(h.id)));
      for (const [i, h] of got.entries()) expect(h.similarity).toBeCloseTo(want[i]!.score, 5);
      expect(m.similarity(Number(want[0]!.id), query)).toBeCloseTo(want[0]!.score, 5);
    }
  });

  it('gives the cosine of one row, and nothing for an id it does not hold', () => {
    const a = vector(16);
    const q = vector(16);
    const m = new VectorMatrix(16);
    m.add(5, a);
    expect(m.similarity(5, q)).toBeCloseTo(cosine(a, q), 6);
    expect(m.similarity(6, q)).toBeUndefined();
    expect(m.has(5)).toBe(true);
  });

  it('replaces the row of an id added again', () => {
    const m = new VectorMatrix(3);
    m.add(1, Float32Array.of(1, 0, 0));
    m.add(2, Float32Array.of(0, 1, 0));
    m.add(1, Float32Array.of(0, 0, 2));
    expect(m.size).toBe(2);
    expect(m.nearest(Float32Array.of(0, 0, 1), 1)).toEqual([{ id: 1, similarity: 1 }]);
  });

  it('leaves out zero vectors and vectors of another dimension, and answers such queries with nothing', () => {
    const m = new VectorMatrix(3);
    expect(m.add(1, Float32Array.of(0, 0, 0))).toBe(false);
    expect(m.add(2, Float32Array.of(1, 2))).toBe(false);
    expect(m.add(3, Float32Array.of(1, 2, 3))).toBe(true);
    expect(m.size).toBe(1);
    expect(m.nearest(Float32Array.of(0, 0, 0), 5)).toEqual([]);
    expect(m.nearest(Float32Array.of(1, 2), 5)).toEqual([]);
    expect(m.similarity(3, Float32Array.of(1, 2))).toBeUndefined();
  });

  it('keeps the row added first among equal scores, and returns at most k rows, best first', () => {
    const m = new VectorMatrix(2);
    m.add(10, Float32Array.of(1, 0));
    m.add(11, Float32Array.of(2, 0));
    m.add(12, Float32Array.of(0, 1));
    m.add(13, Float32Array.of(1, 1));
    expect(m.nearest(Float32Array.of(1, 0), 2).map((h) => h.id)).toEqual([10, 11]);
    expect(m.nearest(Float32Array.of(1, 0), 10).map((h) => h.id)).toEqual([10, 11, 13, 12]);
    expect(m.nearest(Float32Array.of(1, 0), 0)).toEqual([]);
  });
});
