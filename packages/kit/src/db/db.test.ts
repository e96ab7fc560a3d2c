import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/index.js';
import { type Database, openDatabase } from './index.js';
import { statementCacheStats } from './statement-cache.js';

const dirs: Array<{ cleanup(): void }> = [];
const open = async (file = 'db.sqlite', dir = tempDir()) => {
  dirs.push(dir);
  const db = await openDatabase({ url: `file:${join(dir.path, file)}`, schema: {} });
  return { db, dir };
};
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

const count = async (db: Database) =>
  Number((await db.$client.execute('select count(*) as n from t')).rows[0]!.n);

describe('openDatabase', () => {
  it('reuses prepared statements, and drops one that failed', async () => {
    const { db } = await open();
    await db.transaction(async (tx) => {
      await tx.run(sql`create table t (id integer primary key, v text)`);
    });
    const before = { ...statementCacheStats };
    for (let i = 0; i < 20; i++) await db.run(sql`select * from t where id = ${i}`);
    expect(statementCacheStats.hits - before.hits).toBeGreaterThanOrEqual(19);

    await db.transaction(async (tx) => {
      await tx.run(sql`insert into t (id, v) values (${1}, ${'a'})`);
    });
    const dropped = statementCacheStats.dropped;
    await expect(
      db.transaction(async (tx) => {
        await tx.run(sql`insert into t (id, v) values (${1}, ${'again'})`);
      }),
    ).rejects.toThrow(/Failed query: insert into t/);
    expect(statementCacheStats.dropped).toBe(dropped + 1);
    // The same SQL is prepared afresh and works.
    await db.transaction(async (tx) => {
      await tx.run(sql`insert into t (id, v) values (${2}, ${'b'})`);
    });
    expect(await count(db)).toBe(2);
  });

  it('sets synchronous = NORMAL on every pooled connection', async () => {
    const { db } = await open();
    // Concurrent executes each borrow a connection of their own.
    const seen = await Promise.all(Array.from({ length: 8 }, () => db.$client.execute('PRAGMA synchronous')));
    for (const r of seen) expect(Number(Object.values(r.rows[0]!)[0])).toBe(1);
  });

  it('lets two processes’ worth of writers share one file without losing or failing a transaction', async () => {
    const dir = tempDir();
    const a = (await open('shared.sqlite', dir)).db;
    const b = (await open('shared.sqlite', dir)).db;
    await a.transaction(async (tx) => {
      await tx.run(sql`create table t (id integer primary key autoincrement, v text)`);
    });
    // Each transaction holds the write lock across an await, so the other side meets SQLITE_BUSY
    // at BEGIN; libSQL would leave that BEGIN pending and fail every later COMMIT on the connection.
    const writer = (db: Database, name: string) => async () => {
      for (let i = 0; i < 25; i++) {
        await db.transaction(async (tx) => {
          await tx.run(sql`insert into t (v) values (${name})`);
          await new Promise((r) => setTimeout(r, 2));
          await tx.run(sql`insert into t (v) values (${name})`);
        });
      }
    };
    await Promise.all([writer(a, 'a')(), writer(b, 'b')()]);
    expect(await count(a)).toBe(100);
    a.$client.close();
    b.$client.close();
  }, 30_000);
});
