/**
 * Reproduction of a kit bug (not part of `pnpm bench`): `openDatabase` sets
 * `PRAGMA synchronous = NORMAL` on one connection of @libsql/client's pool, but the pool opens
 * more connections when reads arrive while a write transaction is open, and those keep SQLite's
 * default FULL. Write transactions that then land on them fsync the WAL at every commit, on the
 * event loop (libSQL is synchronous).
 *
 *   npx tsx --conditions=development bench/profile/sqlite-synchronous.ts
 *   strace -f -c -e trace=fsync npx tsx --conditions=development bench/profile/sqlite-synchronous.ts
 *
 * Prints, for 300 write transactions beside 4 busy readers: the time, and the `synchronous`
 * value each transaction saw (1 NORMAL, 2 FULL) — as the kit opens the database today, and with
 * the suggested fix (the pragma set on every pooled connection up front, here by borrowing 8 at
 * once; the kit would do it for its `concurrency` connections in `openDatabase`).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@lore/kit';

for (const fix of [false, true, false, true]) {
  const path = join(tmpdir(), `lore-sync-${process.pid}-${fix}-${Math.round(performance.now())}.db`);
  const db = await openDatabase({ url: `file:${path}`, schema: {} });
  await db.$client.execute('create table t (x integer, pad text)');
  if (fix)
    await Promise.all(Array.from({ length: 8 }, () => db.$client.execute('PRAGMA synchronous = NORMAL')));
  const seen: Record<string, number> = {};
  let reading = true;
  const readers = Array.from({ length: 4 }, async () => {
    while (reading) {
      await db.$client.execute('select count(*) from t');
      await new Promise((r) => setImmediate(r));
    }
  });
  const t0 = performance.now();
  for (let i = 0; i < 300; i++)
    await db.transaction(async (tx) => {
      const [r] = (await tx.all('PRAGMA synchronous' as never)) as Array<Record<string, unknown>>;
      const k = String(Object.values(r ?? {})[0]);
      seen[k] = (seen[k] ?? 0) + 1;
      await tx.run(`insert into t values (1, '${'x'.repeat(500)}')` as never);
    });
  reading = false;
  await Promise.all(readers);
  process.stdout.write(
    `${fix ? 'pragma on every pooled connection' : 'as openDatabase leaves it today  '}: 300 write transactions ` +
      `beside 4 readers in ${(performance.now() - t0).toFixed(0)} ms; synchronous seen ${JSON.stringify(seen)}\n`,
  );
  db.$client.close();
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
}
