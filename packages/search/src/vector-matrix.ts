import { dotKernel } from './dot-kernel.js';

/**
 * Vectors of one dimension, one row each in a single block of memory, scaled to unit length as
 * they are added: a query's cosine with every row is then one dot product, read in order. When
 * the dimension is a multiple of four the rows live in a WebAssembly memory and the products are
 * taken four lanes at a time (`dot-kernel.ts`); otherwise in JavaScript. `cosineTopK` over an array
 * of separate vectors computes each row's norm again on every query and reads rows scattered over
 * the heap: at 100,000 rows of 384 dimensions it took 45–53 ms of CPU a query where this took
 * 7.0–8.1, 0.15–0.17× (`vector-matrix.bench.ts`, beside this file, prints the comparison; the same
 * layout in JavaScript alone took 0.4–0.8×). A row costs 1,536
 * bytes and its id, where a row of its own cost an ArrayBuffer, a view and an object more.
 *
 * Scores are those of `cosine` up to float rounding (the norms are taken once, in float32; the
 * kernel sums in float32 as libSQL does). Ids are numbers (a table's integer ids); adding an id
 * again replaces its row.
 */
export class VectorMatrix {
  private data: Float32Array;
  private ids: Float64Array;
  private readonly rowOf = new Map<number, number>();
  private rows = 0;
  /** The kernel and its memory: [query: d floats][rows: capacity × d][scores: capacity]. */
  private readonly kernel: ReturnType<typeof dotKernel>;

  constructor(
    readonly dimensions: number,
    capacity = 64,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`VectorMatrix: dimensions must be a positive integer, got ${dimensions}`);
    const cap = Math.max(1, Math.floor(capacity));
    this.kernel = dimensions % 4 === 0 ? dotKernel(this.bytesFor(cap)) : undefined;
    this.data = this.kernel
      ? new Float32Array(this.kernel.memory.buffer, dimensions * 4, cap * dimensions)
      : new Float32Array(cap * dimensions);
    this.ids = new Float64Array(cap);
  }

  get size(): number {
    return this.rows;
  }

  /** Adds (or replaces) the row of `id`. A vector of another dimension or of length zero is left out. */
  add(id: number, vector: Float32Array): boolean {
    const d = this.dimensions;
    if (vector.length !== d) return false;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += vector[i]! * vector[i]!;
    if (!(norm > 0) || !Number.isFinite(norm)) return false;
    let row = this.rowOf.get(id);
    if (row === undefined) {
      if (this.rows === this.ids.length) this.grow();
      row = this.rows++;
      this.rowOf.set(id, row);
      this.ids[row] = id;
    }
    const inv = 1 / Math.sqrt(norm);
    const at = row * d;
    for (let i = 0; i < d; i++) this.data[at + i] = vector[i]! * inv;
    return true;
  }

  has(id: number): boolean {
    return this.rowOf.has(id);
  }

  /** Cosine similarity of the row of `id` with `query` (undefined without a row). */
  similarity(id: number, query: Float32Array): number | undefined {
    const row = this.rowOf.get(id);
    const q = this.unit(query);
    if (row === undefined || !q) return undefined;
    return this.dot(q, row * this.dimensions);
  }

  /**
   * The `k` rows nearest `query` by cosine, best first (equal scores: the row added first).
   * Empty for a query of another dimension or of length zero.
   */
  nearest(query: Float32Array, k: number): Array<{ id: number; similarity: number }> {
    const cap = Math.min(Math.floor(k), this.rows);
    const q = this.unit(query);
    if (!(cap > 0) || !q) return [];
    // A min-heap of the best rows so far: the root is the worst kept (lowest score, latest row).
    const hs = new Float64Array(cap);
    const hr = new Int32Array(cap);
    let n = 0;
    const worse = (a: number, b: number) => hs[a]! < hs[b]! || (hs[a] === hs[b] && hr[a]! > hr[b]!);
    const swap = (a: number, b: number) => {
      const s = hs[a]!;
      hs[a] = hs[b]!;
      hs[b] = s;
      const r = hr[a]!;
      hr[a] = hr[b]!;
      hr[b] = r;
    };
    const scores = this.scores(q);
    for (let row = 0; row < this.rows; row++) {
      const score = scores[row]!;
      if (n < cap) {
        hs[n] = score;
        hr[n] = row;
        for (let i = n++; i > 0; ) {
          const p = (i - 1) >> 1;
          if (!worse(i, p)) break;
          swap(i, p);
          i = p;
        }
      } else if (score > hs[0]!) {
        hs[0] = score;
        hr[0] = row;
        for (let i = 0; ; ) {
          const l = 2 * i + 1;
          let m = i;
          if (l < n && worse(l, m)) m = l;
          if (l + 1 < n && worse(l + 1, m)) m = l + 1;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
    }
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => hs[b]! - hs[a]! || hr[a]! - hr[b]!);
    return order.map((i) => ({ id: this.ids[hr[i]!]!, similarity: hs[i]! }));
  }

  /** Every row's dot product with the unit query `q`, in row order. */
  private scores(q: Float32Array): Float32Array | Float64Array {
    const d = this.dimensions;
    const k = this.kernel;
    if (k) {
      const buffer = k.memory.buffer;
      new Float32Array(buffer, 0, d).set(q);
      const out = d * 4 + this.ids.length * d * 4;
      k.dots(0, d * 4, this.rows, d / 4, out);
      return new Float32Array(buffer, out, this.rows);
    }
    const scores = new Float64Array(this.rows);
    for (let row = 0; row < this.rows; row++) scores[row] = this.dot(q, row * d);
    return scores;
  }

  /** Bytes of the kernel's memory for `capacity` rows. */
  private bytesFor(capacity: number): number {
    return (this.dimensions + capacity * this.dimensions + capacity) * 4;
  }

  /** The query at unit length, or undefined when it cannot be compared. */
  private unit(query: Float32Array): Float32Array | undefined {
    const d = this.dimensions;
    if (query.length !== d) return undefined;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += query[i]! * query[i]!;
    if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
    const q = new Float32Array(d);
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < d; i++) q[i] = query[i]! * inv;
    return q;
  }

  /** Dot product of `q` with the row starting at `at`: four sums, so that V8 keeps them in registers. */
  private dot(q: Float32Array, at: number): number {
    const m = this.data;
    const d = this.dimensions;
    const end = d - (d % 4);
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let i = 0;
    for (; i < end; i += 4) {
      a0 += q[i]! * m[at + i]!;
      a1 += q[i + 1]! * m[at + i + 1]!;
      a2 += q[i + 2]! * m[at + i + 2]!;
      a3 += q[i + 3]! * m[at + i + 3]!;
    }
    for (; i < d; i++) a0 += q[i]! * m[at + i]!;
    return a0 + a1 + a2 + a3;
  }

  private grow() {
    const cap = this.ids.length * 2;
    const k = this.kernel;
    if (k) {
      // The rows stay where they are; the memory grows under them (its old views are detached).
      const missing = this.bytesFor(cap) - k.memory.buffer.byteLength;
      if (missing > 0) k.memory.grow(Math.ceil(missing / 65_536));
      this.data = new Float32Array(k.memory.buffer, this.dimensions * 4, cap * this.dimensions);
    } else {
      const data = new Float32Array(cap * this.dimensions);
      data.set(this.data);
      this.data = data;
    }
    const ids = new Float64Array(cap);
    ids.set(this.ids);
    this.ids = ids;
  }
}
