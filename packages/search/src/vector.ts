/**
 * Reads a stored embedding. drizzle/libsql hand back Buffers that are views into a larger
 * pool, so the Float32Array is a view at the same offset when it is 4-byte aligned and a
 * copy otherwise. Assumes the platform's (little-endian) byte order, as `float32ToBuffer` writes.
 */
export function float32FromBuffer(b: Uint8Array | ArrayBuffer): Float32Array {
  if (!ArrayBuffer.isView(b)) {
    if (b.byteLength % 4 !== 0) throw new RangeError(`vector blob of ${b.byteLength} bytes is not float32`);
    return new Float32Array(b);
  }
  if (b.byteLength % 4 !== 0) throw new RangeError(`vector blob of ${b.byteLength} bytes is not float32`);
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

/** A Buffer holding a copy of the vector's bytes, for a BLOB column. */
export function float32ToBuffer(v: Float32Array): Buffer {
  return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

/**
 * Exact cosine top-k: one pass over the vectors with a bounded min-heap (O(n log k)); the
 * query is normalised once. Vectors of another dimension, zero vectors and NaN scores are
 * skipped. Results are best first; equal scores keep input order.
 */
/** Cosine similarity of two vectors of one dimension (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

export function cosineTopK(
  query: Float32Array,
  vectors: Array<{ id: string; vector: Float32Array }>,
  k: number,
): Array<{ id: string; score: number }> {
  const cap = Math.floor(k);
  if (!(cap > 0) || vectors.length === 0) return [];
  const dim = query.length;
  let qn = 0;
  for (let i = 0; i < dim; i++) qn += query[i]! * query[i]!;
  if (!(qn > 0)) return [];
  const q = new Float32Array(dim);
  const inv = 1 / Math.sqrt(qn);
  for (let i = 0; i < dim; i++) q[i] = query[i]! * inv;

  // Min-heap of candidates: the root is the worst kept (lowest score, latest on ties).
  const heapScore: number[] = [];
  const heapIdx: number[] = [];
  const worse = (a: number, b: number) =>
    heapScore[a]! < heapScore[b]! || (heapScore[a] === heapScore[b] && heapIdx[a]! > heapIdx[b]!);
  const swap = (a: number, b: number) => {
    const s = heapScore[a]!;
    heapScore[a] = heapScore[b]!;
    heapScore[b] = s;
    const x = heapIdx[a]!;
    heapIdx[a] = heapIdx[b]!;
    heapIdx[b] = x;
  };
  const siftUp = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) break;
      swap(i, p);
      i = p;
    }
  };
  const siftDown = (i: number) => {
    const n = heapScore.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && worse(l, m)) m = l;
      if (r < n && worse(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };

  for (let idx = 0; idx < vectors.length; idx++) {
    const v = vectors[idx]!.vector;
    if (v.length !== dim) continue;
    let dot = 0;
    let vn = 0;
    for (let i = 0; i < dim; i++) {
      const x = v[i]!;
      dot += q[i]! * x;
      vn += x * x;
    }
    if (!(vn > 0)) continue;
    const score = dot / Math.sqrt(vn);
    if (Number.isNaN(score)) continue;
    if (heapScore.length < cap) {
      heapScore.push(score);
      heapIdx.push(idx);
      siftUp(heapScore.length - 1);
    } else if (score > heapScore[0]!) {
      heapScore[0] = score;
      heapIdx[0] = idx;
      siftDown(0);
    }
  }

  const order = heapScore.map((_, i) => i);
  order.sort((a, b) => heapScore[b]! - heapScore[a]! || heapIdx[a]! - heapIdx[b]!);
  return order.map((i) => ({ id: vectors[heapIdx[i]!]!.id, score: heapScore[i]! }));
}

/**
 * Reciprocal rank fusion: each list contributes `1 / (k + rank)` (rank from 1) to an item,
 * keyed by `key`; duplicates within a list count once, at their best rank. The first item
 * seen for a key is returned. Best first; ties keep first-seen order.
 */
export function reciprocalRankFusion<T>(
  lists: T[][],
  key: (t: T) => string,
  k = 60,
): Array<{ item: T; score: number }> {
  const fused = new Map<string, { item: T; score: number; order: number }>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.forEach((item, rank) => {
      const id = key(item);
      if (seen.has(id)) return;
      seen.add(id);
      const inc = 1 / (k + rank + 1);
      const entry = fused.get(id);
      if (entry) entry.score += inc;
      else fused.set(id, { item, score: inc, order: fused.size });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => ({ item, score }));
}
