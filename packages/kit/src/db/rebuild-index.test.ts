import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/index.js';
import { type Database, openDatabase, type Transaction } from './index.js';
import { type IndexRebuild, rebuildInBackground, rebuildIndex } from './rebuild-index.js';

/** A source table of 25 rows and a derived one that records which version wrote each row. */
describe('rebuildIndex', () => {
  let dir: { path: string; cleanup(): void };
  let db: Database;

  beforeEach(async () => {
    dir = tempDir();
    db = await openDatabase({ url: `file:${dir.path}/k.db`, schema: {} });
    await db.run(sql`create table src (id integer primary key)`);
    await db.run(sql`create table derived (id integer primary key, version text)`);
    for (let i = 1; i <= 25; i++) await db.run(sql`insert into src (id) values (${i})`);
  });
  afterEach(() => {
    db.$client.close();
    dir.cleanup();
  });

  const rebuild = (version: string, more: Partial<IndexRebuild> = {}) => {
    const finished: string[] = [];
    const run = rebuildIndex(db, {
      name: 'derived',
      version,
      batch: 10,
      async rewrite(tx: Transaction, after: number, limit: number) {
        const rows = await tx.all<{ id: number }>(
          sql`select id from src where id > ${after} order by id limit ${limit}`,
        );
        if (!rows.length) return null;
        for (const r of rows)
          await tx.run(sql`insert or replace into derived (id, version) values (${r.id}, ${version})`);
        return { last: Number(rows[rows.length - 1]!.id), rows: rows.length };
      },
      async finish() {
        finished.push(version);
      },
      ...more,
    });
    return run.then((n) => ({ n, finished }));
  };
  const versions = async () =>
    (
      await db.all<{ version: string; n: number }>(
        sql`select version, count(*) as n from derived group by version order by version`,
      )
    ).map((r) => `${r.version}:${r.n}`);
  const recorded = async () =>
    (
      await db.all<{ version: string | null }>(
        sql`select version from lore_index_versions where name = 'derived'`,
      )
    )[0]?.version;
  const stopAfter = (batches: number) => {
    let checks = 0;
    return {
      get aborted() {
        return ++checks > batches;
      },
    } as AbortSignal;
  };

  it('rewrites every row when no version is recorded, then records it and does nothing more', async () => {
    expect(await rebuild('1')).toEqual({ n: 25, finished: ['1'] });
    expect(await recorded()).toBe('1');
    expect(await rebuild('1')).toEqual({ n: 0, finished: [] });
    // Another version: every row again.
    expect(await rebuild('2')).toEqual({ n: 25, finished: ['2'] });
    expect(await versions()).toEqual(['2:25']);
  });

  it('goes on from the last batch after a stop, and starts over for another version', async () => {
    expect((await rebuild('1', { signal: stopAfter(1) })).n).toBe(10);
    expect(await recorded()).toBeNull();
    expect((await rebuild('1', { signal: stopAfter(1) })).n).toBe(10);
    expect(await versions()).toEqual(['1:20']);
    // The code changed again before the rewrite ended: what it did counts for nothing.
    expect(await rebuild('2')).toEqual({ n: 25, finished: ['2'] });
    expect(await versions()).toEqual(['2:25']);
    expect(await recorded()).toBe('2');
  });

  it('rewrites a current index when forced (known to be incomplete)', async () => {
    await rebuild('1');
    expect(await rebuild('1', { force: true })).toEqual({ n: 25, finished: ['1'] });
  });
});

describe('rebuildInBackground', () => {
  const logger = () => {
    const lines: Array<{ level: string; obj: object; msg: string }> = [];
    return {
      lines,
      info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }),
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }),
    };
  };

  it('logs what it rewrote, and nothing when the index was current', async () => {
    const log = logger();
    await rebuildInBackground(log, 'test index', async () => ({ rows: 3 }))();
    await rebuildInBackground(log, 'other index', async () => ({ rows: 0 }))();
    expect(log.lines).toEqual([{ level: 'info', obj: { rows: 3 }, msg: 'test index rewritten' }]);
  });

  it('stops between batches when the service stops, and logs a failure without throwing', async () => {
    const log = logger();
    let aborted = false;
    const stop = rebuildInBackground(log, 'test index', (signal) => {
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          aborted = true;
          resolve({ rows: 0 });
        }),
      );
    });
    await stop();
    expect(aborted).toBe(true);
    await rebuildInBackground(log, 'broken index', async () => {
      throw new Error('disk full');
    })();
    expect(log.lines).toEqual([
      { level: 'warn', obj: { err: 'disk full' }, msg: 'broken index rewrite failed; next start resumes' },
    ]);
  });
});
