import { createClient } from '@libsql/client/sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { nearestSql, similarityOfSql, vectorColumnType, vectorParam } from './vector-sql.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('vector SQL on libSQL (F32_BLOB, vector_distance_cos)', () => {
  const db = createClient({ url: ':memory:' });
  afterAll(() => db.close());

  it('finds the nearest rows of a scope, best first, skipping rows without a vector', async () => {
    await db.execute(`create table v (id integer primary key, scope text, vec ${vectorColumnType(3)})`);
    const rows: Array<[number, string, Float32Array | null]> = [
      [1, 'a', unit(1, 0, 0)],
      [2, 'a', unit(1, 1, 0)],
      [3, 'a', unit(0, 1, 0)],
      [4, 'b', unit(1, 0, 0)],
      [5, 'a', null],
    ];
    for (const [id, scope, vec] of rows)
      await db.execute({ sql: 'insert into v values (?, ?, ?)', args: [id, scope, vec && vectorParam(vec)] });
    const q = vectorParam(unit(1, 0.1, 0));
    const near = await db.execute({
      sql: nearestSql({ table: 'v', column: 'vec', id: 'id', where: 'scope = ?', k: 2 }),
      args: [q, 'a'],
    });
    expect(near.rows.map((r) => Number(r.id))).toEqual([1, 2]);
    expect(Number(near.rows[0]!.similarity)).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
    const all = await db.execute({
      sql: nearestSql({ table: 'v', column: 'vec', id: 'id', k: 10 }),
      args: [q],
    });
    expect(all.rows.map((r) => Number(r.id))).toEqual([1, 4, 2, 3]);
    const some = await db.execute({
      sql: similarityOfSql({ table: 'v', column: 'vec', id: 'id' }, 3),
      args: [q, 3, 5, 4],
    });
    expect(some.rows.map((r) => Number(r.id)).sort()).toEqual([3, 4]);
  });

  it('refuses a bad k, id count or dimension by name', () => {
    expect(() => nearestSql({ table: 'v', column: 'vec', id: 'id', k: 0 })).toThrow(/k must be/);
    expect(() => similarityOfSql({ table: 'v', column: 'vec', id: 'id' }, 0)).toThrow(/at least one id/);
    expect(() => vectorColumnType(0)).toThrow(/dimensions/);
  });
});
