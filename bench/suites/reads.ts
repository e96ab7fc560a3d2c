import { join } from 'node:path';
import { createLogger } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { openDatabase } from '@lore/kit/db';
import { AgentRepository, ConnectionRepository, usersTables as t } from '@lore/users';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { Bench } from 'tinybench';
import { ROOT, type Row, row } from '../lib.js';

/**
 * The users service's per-call reads: the reads of an `agent_profile` call and the key
 * verification, through the service's repositories (drizzle prepared statements, made once)
 * against the same reads built by drizzle's query builders on every call (the baseline), on one
 * database in the same run.
 */
export async function readsSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const db = await openDatabase({
    url: `file:${join(opts.dataDir, 'users.db')}`,
    schema: t,
    migrationsFolder: join(ROOT, 'packages/users/migrations'),
  });
  const outbox = new Outbox(
    db,
    new MemoryBus(),
    { node: 'bench', service: 'users' },
    createLogger({ name: 'bench', level: 'silent' }),
  );
  const agents = new AgentRepository(db, outbox, 'bench');
  const connections = new ConnectionRepository(db, outbox);
  const reg = async (h: string) =>
    agents.register({ username: h, email: `${h}@example.com`, displayName: h } as never);
  const me = await reg('reader');
  const others = await Promise.all(['ann', 'bob', 'cy', 'dee'].map(reg));
  for (const o of others.slice(0, 2)) {
    await connections.request(
      { id: me.profile.id, handle: 'reader' },
      { id: o.profile.id, handle: o.profile.username },
      { purpose: 'x' },
    );
    await connections.request(
      { id: o.profile.id, handle: o.profile.username },
      { id: me.profile.id, handle: 'reader' },
      { purpose: 'x' },
    );
  }
  for (const o of others.slice(2))
    await connections.request(
      { id: o.profile.id, handle: o.profile.username },
      { id: me.profile.id, handle: 'reader' },
      { purpose: 'y' },
    );
  await db.insert(t.activity).values(
    Array.from({ length: 20 }, (_, i) => ({
      eventId: `e${i}`,
      agentId: me.profile.id,
      kind: 'post',
      summary: `did ${i}`,
      at: i,
    })),
  );
  const id = me.profile.id;
  const keyHash = (
    await db.select({ h: t.apiKeys.keyHash }).from(t.apiKeys).where(eq(t.apiKeys.agentId, id))
  )[0]!.h;

  const builtProfile = async () => {
    await db.query.agents.findFirst({ where: eq(t.agents.handle, 'reader') });
    await db
      .select()
      .from(t.activity)
      .where(eq(t.activity.agentId, id))
      .orderBy(desc(t.activity.at))
      .limit(5);
    const rows = await db
      .select({ a: t.connections.a, b: t.connections.b })
      .from(t.connections)
      .where(or(eq(t.connections.a, id), eq(t.connections.b, id)))
      .orderBy(t.connections.createdAt);
    const ids = rows.map((r) => (r.a === id ? r.b : r.a));
    if (ids.length)
      await db
        .select({ id: t.agents.id, handle: t.agents.handle })
        .from(t.agents)
        .where(inArray(t.agents.id, ids));
    await db
      .select({ req: t.connectionRequests, fromHandle: t.agents.handle })
      .from(t.connectionRequests)
      .innerJoin(t.agents, eq(t.agents.id, t.connectionRequests.fromId))
      .where(
        and(
          eq(t.connectionRequests.toId, id),
          sql`not exists (select 1 from connection_requests back where back.from_id = ${id} and back.to_id = "connection_requests"."from_id")`,
        ),
      )
      .orderBy(t.connectionRequests.createdAt);
  };
  const preparedProfile = () => agents.profileView('reader', id);
  const builtKey = () =>
    db
      .select({
        id: t.agents.id,
        handle: t.agents.handle,
        node: t.agents.node,
        lastActiveAt: t.agents.lastActiveAt,
      })
      .from(t.apiKeys)
      .innerJoin(t.agents, eq(t.agents.id, t.apiKeys.agentId))
      .where(and(eq(t.apiKeys.keyHash, keyHash), isNull(t.apiKeys.revokedAt)))
      .limit(1);
  const preparedKey = () => agents.verifyKey(keyHash);
  // Both sides read the same rows.
  const seen = await agents.profileView('reader', id);
  if (seen?.connections.length !== 2 || seen.pending.length !== 2)
    throw new Error('the hot reads do not see the seeded rows');

  const bench = new Bench({ time: Math.max(500, opts.seconds * 200) });
  bench
    .add('profile reads, query builders', builtProfile)
    .add('profile reads, prepared', preparedProfile)
    .add('key verification, query builder', builtKey)
    .add('key verification, prepared', preparedKey);
  await bench.run();
  const perSecond = (name: string) => {
    const task = bench.getTask(name);
    if (task?.result.state !== 'completed') throw new Error(`${name}: ${task?.result.state}`);
    return 1000 / task.result.latency.mean;
  };
  db.$client.close();
  const out: Row[] = [];
  for (const [base, mine] of [
    ['profile reads, query builders', 'profile reads, prepared'],
    ['key verification, query builder', 'key verification, prepared'],
  ] as const) {
    const baseline = { name: base, value: perSecond(base) };
    out.push(row({ suite: 'reads', name: base, value: baseline.value, unit: 'calls/s' }));
    out.push(
      row({
        suite: 'reads',
        name: mine,
        value: perSecond(mine),
        unit: 'calls/s',
        baseline,
        target: '≥ 1.5×',
        met: perSecond(mine) / baseline.value >= 1.5,
      }),
    );
  }
  return out;
}
