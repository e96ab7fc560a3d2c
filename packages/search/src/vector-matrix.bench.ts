/**
 * What `VectorMatrix` saves, beside it: the `k` nearest of `rows` random unit vectors (384
 * dimensions) to a query, by `cosineTopK` over separate vectors (each in an ArrayBuffer of its
 * own, as libSQL hands rows back) and by `VectorMatrix.nearest`, alternated in rounds. Prints the
 * CPU ms a query of each, their ratio per round, and whether both found the same rows.
 *
 *   npx tsx --conditions=development packages/search/src/vector-matrix.bench.ts [rows=100000] [rounds=5]
 */
import { cosineTopK } from './vector.js';
import { VectorMatrix } from './vector-matrix.js';

const rows = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 5);
const D = 384;
const K = 30;
const QUERIES = 10;

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31 - 0.5;
};
const unit = () => {
  const v = new Float32Array(new ArrayBuffer(D * 4));
  let n = 0;
  for (let i = 0; i < D; i++) {
    v[i] = random();
    n += v[i]! * v[i]!;
  }
  for (let i = 0; i < D; i++) v[i]! /= Math.sqrt(n);
  return v;
};
const items = Array.from({ length: rows }, (_, i) => ({ id: String(i), vector: unit() }));
const matrix = new VectorMatrix(D, rows);
for (const it of items) matrix.add(Number(it.id), it.vector);
const queries = Array.from({ length: QUERIES }, unit);

const cpuMs = (f: () => void) => {
  const c = process.cpuUsage();
  f();
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1000 / QUERIES;
};
let same = true;
for (const q of queries) {
  const a = cosineTopK(q, items, K).map((h) => Number(h.id));
  const b = matrix.nearest(q, K).map((h) => h.id);
  same &&= JSON.stringify(a) === JSON.stringify(b);
}
process.stdout.write(`${rows} rows of ${D} dimensions, top ${K}; same rows: ${same}\n`);
for (let r = 0; r < rounds; r++) {
  const before = cpuMs(() => {
    for (const q of queries) cosineTopK(q, items, K);
  });
  const after = cpuMs(() => {
    for (const q of queries) matrix.nearest(q, K);
  });
  process.stdout.write(
    `round ${r + 1}: cosineTopK ${before.toFixed(1)} ms, VectorMatrix ${after.toFixed(1)} ms (${(after / before).toFixed(2)}×)\n`,
  );
}
