import { float32ToBuffer } from './vector.js';

/**
 * SQL for libSQL's native vectors: a `F32_BLOB(n)` column holds a vector as n little-endian
 * float32 values (the bytes `float32ToBuffer` writes), and `vector_distance_cos(column, ?)`
 * (1 − cosine similarity) compares it with a bound query vector inside the database, on a local
 * file and on a libSQL server (sqld) alike. The statements take their arguments as `?`
 * placeholders, in the order `vectorArgs` gives; identifiers come from the caller's code,
 * never from input.
 */

/** The bound form of a query vector (a BLOB of its float32 bytes). */
export const vectorParam = (v: Float32Array): Uint8Array => float32ToBuffer(v);

/** A column declaration for vectors of `dimensions` float32 values. */
export const vectorColumnType = (dimensions: number): string => {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65_536)
    throw new RangeError(
      `vectorColumnType: dimensions must be an integer from 1 to 65536, got ${dimensions}`,
    );
  return `F32_BLOB(${dimensions})`;
};

/** Cosine similarity (−1..1) of `column` and the bound query vector, as an SQL expression. */
export const similaritySql = (column: string): string => `(1 - vector_distance_cos(${column}, ?))`;

export interface NearestOptions {
  table: string;
  /** The vector column. */
  column: string;
  /** What each row is returned by (its `id`). */
  id: string;
  /** Conditions the rows must meet (`?` placeholders, bound after the query vector). */
  where?: string;
  /** Rows returned at most. */
  k: number;
}

/**
 * The `k` rows nearest the bound query vector by an exact scan of the rows `where` selects
 * (an index on its columns finds them): `select id, similarity`, best first. Rows with no
 * vector are left out. Arguments: the query vector (`vectorParam`), then `where`'s.
 */
export function nearestSql(o: NearestOptions): string {
  const k = Math.floor(o.k);
  if (!(k > 0)) throw new RangeError(`nearestSql: k must be at least 1, got ${o.k}`);
  const where = o.where ? ` and (${o.where})` : '';
  return (
    `select ${o.id} as id, ${similaritySql(o.column)} as similarity from ${o.table} ` +
    `where ${o.column} is not null${where} order by similarity desc limit ${k}`
  );
}

/**
 * The similarity of the given rows (ids as `?` placeholders after the query vector):
 * `select id, similarity`. For rows another signal found, to judge them by meaning too.
 */
export function similarityOfSql(o: Omit<NearestOptions, 'k'>, ids: number): string {
  if (!(ids > 0)) throw new RangeError(`similarityOfSql: at least one id, got ${ids}`);
  const where = o.where ? ` and (${o.where})` : '';
  return (
    `select ${o.id} as id, ${similaritySql(o.column)} as similarity from ${o.table} ` +
    `where ${o.id} in (${new Array(ids).fill('?').join(', ')}) and ${o.column} is not null${where}`
  );
}
