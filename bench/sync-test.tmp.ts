import { openDatabase } from '@lore/kit';
for (const fix of [false, true, false, true]) {
  const db = await openDatabase({ url: `file:/tmp/sync-test-${process.pid}-${fix}-${Math.round(performance.now())}.db`, schema: {} });
  await db.$client.execute('create table if not exists t (x integer, pad text)');
  // The fix under test: set the pragma on several pooled connections at once (each concurrent
  // execute borrows its own), so that connections the pool hands out later are not FULL.
  if (fix) await Promise.all(Array.from({ length: 8 }, () => db.$client.execute('PRAGMA synchronous = NORMAL')));
  const seen = new Map<string, number>();
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
      const r = await tx.all('PRAGMA synchronous' as never);
      const k = String(Object.values((r as Array<Record<string, unknown>>)[0] ?? {})[0]);
      seen.set(k, (seen.get(k) ?? 0) + 1);
      await tx.run(`insert into t values (1, '${'x'.repeat(500)}')` as never);
    });
  reading = false;
  await Promise.all(readers);
  console.log(`${fix ? 'pragma set on 8 pooled connections at open' : 'as the kit opens it today           '}: 300 write transactions beside 4 readers ${(performance.now() - t0).toFixed(0)} ms; synchronous seen`, Object.fromEntries(seen));
}
