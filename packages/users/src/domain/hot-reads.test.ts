import { fileURLToPath } from 'node:url';
import { type Database, openDatabase } from '@lore/kit/db';
import { SqldProcess, tempDir } from '@lore/kit/testing';
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { usersRepositories } from '../../test/fixtures/repositories.js';
import * as t from '../tables.js';
import { HotReads } from './hot-reads.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function fileDb(): Promise<Database<typeof t>> {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return openDatabase({ url: `file:${dir.path}/users.db`, schema: t, migrationsFolder: MIGRATIONS });
}

async function sqldDb(): Promise<Database<typeof t>> {
  const dir = tempDir('lore-sqld-');
  const server = new SqldProcess(dir.path);
  await server.start();
  cleanups.push(dir.cleanup, () => server.kill());
  return openDatabase({ url: server.url, schema: t, migrationsFolder: MIGRATIONS });
}

/** A users database with its repositories, and `reg(handle)` registering an agent (skills: go). */
async function users(open: () => Promise<Database<typeof t>>) {
  const db = await open();
  cleanups.push(() => db.$client.close());
  return { db, ...usersRepositories(db) };
}

describe.each([
  ['a local file', fileDb],
  ['a libSQL server (sqld)', sqldDb],
])('the users hot reads on %s', (_name, open) => {
  it('return what the query builders return', async () => {
    const { db, connections, reg } = await users(open);
    const [me, ann, bob, cy] = [await reg('me'), await reg('ann'), await reg('bob'), await reg('cy')];
    await connections.request(me, ann, { purpose: 'pair' });
    await connections.request(ann, me, { purpose: 'pair' });
    await connections.request(bob, me, { purpose: 'ask', proposal: 'a review', duration: '1 week' });
    await connections.request(cy, me, { purpose: 'ask' });
    await connections.request(me, cy, { purpose: 'ask' });
    await db.insert(t.activity).values(
      Array.from({ length: 8 }, (_, i) => ({
        eventId: `e${i}`,
        agentId: me.id,
        kind: 'post',
        summary: `s${i}`,
        at: 100 + i,
      })),
    );
    const hot = new HotReads(db);

    expect(await hot.agentByHandle('me')).toEqual(
      await db.query.agents.findFirst({ where: eq(t.agents.handle, 'me') }),
    );
    expect(await hot.agentById(ann.id)).toEqual(
      await db.query.agents.findFirst({ where: eq(t.agents.id, ann.id) }),
    );
    expect(await hot.agentByHandle('nobody')).toBeUndefined();
    expect((await hot.agentByHandle('me'))?.skills).toEqual([{ name: 'go', level: 'intermediate' }]);

    expect(await hot.recentActivity(me.id, 5)).toEqual(
      await db
        .select()
        .from(t.activity)
        .where(eq(t.activity.agentId, me.id))
        .orderBy(desc(t.activity.at))
        .limit(5),
    );

    const pairs = await db
      .select()
      .from(t.connections)
      .where(or(eq(t.connections.a, me.id), eq(t.connections.b, me.id)))
      .orderBy(t.connections.createdAt);
    const others = pairs.map((p) => (p.a === me.id ? p.b : p.a));
    const names = await db.select().from(t.agents).where(inArray(t.agents.id, others));
    expect(await hot.connectedHandles(me.id)).toEqual(
      others.map((id) => names.find((n) => n.id === id)!.handle),
    );
    expect((await hot.connectedHandles(me.id)).sort()).toEqual(['ann', 'cy']);

    const pending = await hot.pendingFor(me.id);
    expect(pending.map((p) => [p.fromHandle, p.purpose, p.proposal, p.duration])).toEqual([
      ['bob', 'ask', 'a review', '1 week'],
    ]);
    const [built] = await db
      .select()
      .from(t.connectionRequests)
      .where(and(eq(t.connectionRequests.fromId, bob.id), eq(t.connectionRequests.toId, me.id)));
    expect(pending[0]).toEqual({ ...built, fromHandle: 'bob' });

    const [keyRow] = await db
      .select()
      .from(t.apiKeys)
      .where(and(eq(t.apiKeys.agentId, me.id), isNull(t.apiKeys.revokedAt)));
    expect(await hot.liveKey(keyRow!.keyHash)).toMatchObject({ id: me.id, handle: 'me', node: 'n' });
    // A revoked key is not live, as soon as the revocation commits.
    await db.update(t.apiKeys).set({ revokedAt: 1 }).where(sql`key_hash = ${keyRow!.keyHash}`);
    expect(await hot.liveKey(keyRow!.keyHash)).toBeUndefined();
  }, 30_000);

  it('profileView returns what the separate reads return', async () => {
    const { db, connections, reg } = await users(open);
    const [me, ann, bob, cy, dee] = [
      await reg('me'),
      await reg('ann'),
      await reg('bob'),
      await reg('cy'),
      await reg('dee'),
    ];
    await connections.request(me, ann, { purpose: 'pair' });
    await connections.request(ann, me, { purpose: 'pair' });
    await connections.request(dee, me, { purpose: 'pair' });
    await connections.request(me, dee, { purpose: 'pair' });
    // Text that JSON has to escape, and a null proposal, go through as they are.
    const odd = 'say "hi"\\n\tthen\nleave — ✓ 🚀 \u0001';
    await connections.request(bob, me, { purpose: odd, proposal: 'a review', duration: '1 week' });
    await connections.request(cy, me, { purpose: 'ask' });
    // Seven activities, some at the same instant: the five latest, ties in the same order.
    await db.insert(t.activity).values(
      Array.from({ length: 7 }, (_, i) => ({
        eventId: `e${i}`,
        agentId: me.id,
        kind: i % 2 ? 'post' : 'dm',
        summary: i === 3 ? odd : `s${i}`,
        at: 100 + Math.floor(i / 2),
      })),
    );
    const hot = new HotReads(db);
    const separate = async (handle: string, viewer: string) => {
      const agent = await hot.agentByHandle(handle);
      if (!agent) return undefined;
      return {
        agent,
        recent: (await hot.recentActivity(agent.id, 5)).map(({ kind, summary, at }) => ({
          kind,
          summary,
          at,
        })),
        connections: await hot.connectedHandles(agent.id),
        pending:
          viewer === agent.id
            ? (await hot.pendingFor(agent.id)).map(
                ({ fromHandle, purpose, proposal, duration, createdAt }) => ({
                  fromHandle,
                  purpose,
                  proposal,
                  duration,
                  createdAt,
                }),
              )
            : [],
      };
    };

    const own = await hot.profileView('me', me.id, 5);
    expect(own).toEqual(await separate('me', me.id));
    expect(own?.recent.map((r) => r.summary)).toEqual(['s6', 's5', 's4', odd, 's2']);
    expect(own?.connections).toHaveLength(2);
    expect(own?.pending.map((p) => [p.fromHandle, p.purpose, p.proposal])).toEqual([
      ['bob', odd, 'a review'],
      ['cy', 'ask', null],
    ]);
    // Another viewer: no requests; another agent; nobody.
    expect(await hot.profileView('me', ann.id, 5)).toEqual(await separate('me', ann.id));
    expect((await hot.profileView('me', ann.id, 5))?.pending).toEqual([]);
    expect(await hot.profileView('cy', me.id, 5)).toEqual(await separate('cy', me.id));
    expect(await hot.profileView('nobody', me.id, 5)).toBeUndefined();
  }, 30_000);

  it('profileView keeps a view only until the next commit: each write shows on the next view', async () => {
    const { db, connections, reg } = await users(open);
    const [me, ann] = [await reg('me'), await reg('ann')];
    const hot = new HotReads(db);
    const first = await hot.profileView('me', me.id, 5);
    expect(first?.pending).toEqual([]);
    expect(await hot.profileView('me', me.id, 5)).toEqual(first);

    await connections.request(ann, me, { purpose: 'pair' });
    expect((await hot.profileView('me', me.id, 5))?.pending.map((p) => p.fromHandle)).toEqual(['ann']);
    await db
      .insert(t.activity)
      .values({ eventId: 'e1', agentId: me.id, kind: 'post', summary: 'hello', at: 1 });
    expect((await hot.profileView('me', me.id, 5))?.recent.map((r) => r.summary)).toEqual(['hello']);
    await db.update(t.agents).set({ bio: 'now with a bio' }).where(eq(t.agents.id, me.id));
    expect((await hot.profileView('me', me.id, 5))?.agent.bio).toBe('now with a bio');
    // Another viewer's view of the same agent is its own: no waiting requests in it.
    expect((await hot.profileView('me', ann.id, 5))?.pending).toEqual([]);
    await db.delete(t.agents).where(eq(t.agents.id, ann.id));
    expect((await hot.profileView('me', me.id, 5))?.pending).toEqual([]);
    expect(await hot.profileView('ann', me.id, 5)).toBeUndefined();
  }, 30_000);
});
