import { spawn } from 'node:child_process';
import dns from 'node:dns';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/index.js';
import { tempDir } from './index.js';
import { SqldProcess } from './sqld.js';

/** How many migrations the kit's own tables have (its journal), applied once in each database. */
const KIT_MIGRATIONS = (
  JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

const ENSURE_DATABASES = join(import.meta.dirname, '../../../../infra/k8s/base/sqld/ensure-databases.sh');

/**
 * Runs the StatefulSet's ensure-databases container script against `sqld`'s admin API until it
 * says the databases are ready; resolves with what it printed. It stays up afterwards, as in the
 * pod: SIGTERM to its process group ends it (and its sleep).
 */
async function ensureDatabases(sqld: SqldProcess, readyFile: string, names: string[]): Promise<string> {
  const child = spawn('sh', [ENSURE_DATABASES, ...names], {
    env: { ...process.env, SQLD_ADMIN_URL: sqld.adminUrl, READY_FILE: readyFile },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`ensure-databases.sh did not finish:\n${out}`)), 20_000);
      child.stdout.on('data', () => {
        if (out.includes('databases ready')) {
          clearTimeout(t);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(t);
        reject(new Error(`ensure-databases.sh exited with ${code}:\n${out}`));
      });
    });
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    // A `sleep` forked as the signal arrived outlives the shell: end what is left of the group.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // nothing left
    }
  }
  return out;
}

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
    expect(await target.query('select count(*) from __lore_kit_migrations', 'users-db')).toEqual([
      [KIT_MIGRATIONS],
    ]);
    // Namespaces are separate databases.
    await expect(target.query('select count(*) from notes', 'queries-db')).rejects.toThrow(/no such table/);
    expect((await target.dump('users-db')).includes('INSERT INTO notes')).toBe(true);
  }, 60_000);

  it('gets its databases from ensure-databases.sh, and a service opens one by its namespace host name', async () => {
    const sqld = new SqldProcess(join(dir.path, 'namespaced'), { namespaces: true });
    servers.push(sqld);
    await sqld.start();
    const ready = join(dir.path, 'ready');
    const first = await ensureDatabases(sqld, ready, ['users-db', 'queries-db']);
    expect(first).toMatch(/created database users-db[\s\S]*created database queries-db/);
    expect(existsSync(ready)).toBe(true);
    // Idempotent: a restarted pod finds its databases.
    expect(await ensureDatabases(sqld, ready, ['users-db', 'queries-db'])).toMatch(
      /database users-db exists[\s\S]*database queries-db exists/,
    );

    // As in the cluster, `users-db.lore` is a name that resolves to sqld, which takes the
    // namespace from the host name's first label: here the lookup answers loopback for `.lore`.
    const lookup = dns.lookup;
    dns.lookup = ((host: string, options: unknown, callback: unknown) => {
      if (!host.endsWith('.lore')) return (lookup as (...a: unknown[]) => void)(host, options, callback);
      const cb = (typeof options === 'function' ? options : callback) as (...a: unknown[]) => void;
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
      cb(null, all ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4);
    }) as typeof dns.lookup;
    try {
      const db = await openDatabase({ url: `http://users-db.lore:${sqld.port}`, schema: {} });
      await db.transaction(async (tx) => {
        await tx.run(sql`create table agents (handle text primary key)`);
        await tx.run(sql`insert into agents values ('alice')`);
      });
      db.$client.close();
    } finally {
      dns.lookup = lookup;
    }
    // The kit's migrations and the rows went to users-db, and only there.
    expect(await sqld.query('select handle from agents', 'users-db')).toEqual([['alice']]);
    expect(await sqld.query('select count(*) from __lore_kit_migrations', 'users-db')).toEqual([
      [KIT_MIGRATIONS],
    ]);
    await expect(sqld.query('select count(*) from agents', 'queries-db')).rejects.toThrow(/no such table/);
  }, 60_000);
});
