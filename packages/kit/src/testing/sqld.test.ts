import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/index.js';
import { tempDir } from './index.js';
import { SqldProcess } from './sqld.js';

describe('sqld, as the test helper and the operator run it', () => {
  const dir = tempDir('lore-sqld-helper-');
  const servers: SqldProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.kill();
    dir.cleanup();
  });

  it('serves a Lore database, survives a restart, and restores from its dump into a namespace', async () => {
    const source = new SqldProcess(join(dir.path, 'source'));
    servers.push(source);
    await source.start();
    const db = await openDatabase({ url: source.url, schema: {} });
    await db.transaction(async (tx) => {
      await tx.run(sql`create table notes (id integer primary key, body text)`);
      await tx.run(sql`insert into notes (body) values ('kept'), ('also kept')`);
    });
    db.$client.close();

    // A crash and a restart on the same data folder and port lose nothing committed.
    await source.kill('SIGKILL');
    await source.start();
    expect(await source.query('select count(*) from notes')).toEqual([[2]]);

    // The online backup (GET /dump), restored as a namespace through the admin API, the way
    // infra/README.md restores a service's database on the StatefulSet.
    const dump = await source.dump();
    expect(dump).toContain('INSERT INTO notes');
    const file = join(dir.path, 'users-db.sql');
    writeFileSync(file, dump);
    const target = new SqldProcess(join(dir.path, 'target'), { namespaces: true });
    servers.push(target);
    await target.start();
    await target.createNamespace('users-db', file);
    await target.createNamespace('queries-db');
    expect(await target.query('select body from notes order by id', 'users-db')).toEqual([
      ['kept'],
      ['also kept'],
    ]);
    expect(await target.query('select count(*) from __lore_kit_migrations', 'users-db')).toEqual([[1]]);
    // Namespaces are separate databases.
    await expect(target.query('select count(*) from notes', 'queries-db')).rejects.toThrow(/no such table/);
    expect((await target.dump('users-db')).includes('INSERT INTO notes')).toBe(true);
  }, 60_000);
});
