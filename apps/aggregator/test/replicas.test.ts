import { join } from 'node:path';
import { NatsBus } from '@lore/kit/nats';
import {
  call,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  nodeIdentityFile,
  ok,
  type RoundRobinProxy,
  roundRobinProxy,
  SqldProcess,
  shareNodeIdentity,
  tempDir,
} from '@lore/kit/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from './helpers.js';

describe('two replicas of a service and two aggregators, each pair behind a round-robin proxy', () => {
  const dir = tempDir();
  let nats: NatsServerProcess;
  const auth = new NatsAuthFixture({ nodes: ['replica-test'], dir: dir.path });
  const opsCredentials = () => ({ kind: 'user' as const, user: 'ops', password: auth.passwords.ops! });
  let sqld: SqldProcess;
  const users: Spawned[] = [];
  let dms: Spawned;
  const aggs: Spawned[] = [];
  let usersProxy: RoundRobinProxy;
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) {
      if (process.env.CI) throw new Error('nats-server is required under CI');
      return;
    }
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    sqld = new SqldProcess(join(dir.path, 'sqld'));
    await Promise.all([nats.start(), sqld.start()]);
    const common = { NATS_URL: nats.url, LORE_LOG_LEVEL: 'warn', LORE_NODE_ID: 'replica-test' };
    // The processes of one node share its identity (its signing key), as from a mounted Secret.
    const identity = nodeIdentityFile(join(dir.path, 'identity'), 'replica-test');
    // Two processes of the users service: one node id, one database on one libSQL server (as in
    // production), one durable consumer per subscription between them. They start together on
    // the empty database, so both race to migrate it.
    users.push(
      ...(await Promise.all(
        [1, 2].map((n) =>
          spawnTs(
            join(ROOT, 'packages/users/src/main.ts'),
            [],
            {
              ...common,
              LORE_LOG_LEVEL: 'info',
              LORE_PORT: '0',
              ...auth.env('users'),
              LORE_DATA_DIR: shareNodeIdentity(identity, join(dir.path, `users${n}`)),
              LORE_USERS_DB_URL: sqld.url,
              // The concurrent-writes test registers many agents from one address.
              LORE_RATE_LIMITS: 'false',
            },
            /"url":"(http[^"]+)"/,
            60_000,
          ),
        ),
      )),
    );
    // One dms process, whose DmSent events both users replicas consume (their activity feed).
    dms = await spawnTs(
      join(ROOT, 'packages/dms/src/main.ts'),
      [],
      {
        ...common,
        ...auth.env('dms'),
        LORE_LOG_LEVEL: 'info',
        LORE_PORT: '0',
        LORE_DATA_DIR: shareNodeIdentity(identity, join(dir.path, 'dms')),
      },
      /"url":"(http[^"]+)"/,
    );
    usersProxy = await roundRobinProxy(users.map((u) => u.url.replace(/\/mcp$/, '')));
    for (const n of [1, 2]) {
      aggs.push(
        await spawnTs(
          join(ROOT, 'apps/aggregator/src/main.ts'),
          ['start'],
          {
            ...common,
            LORE_PORT: '0',
            ...auth.env('aggregator'),
            LORE_DATA_DIR: join(dir.path, `agg${n}`),
            LORE_SERVICES: `users=${usersProxy.url}/mcp,dms=${dms.url}`,
          },
          /Lore is running at (\S+)/,
        ),
      );
    }
    proxy = await roundRobinProxy(aggs.map((a) => a.url.replace(/\/mcp$/, '')));
  }, 90_000);

  afterAll(async () => {
    await proxy?.close();
    await usersProxy?.close();
    for (const a of aggs) await a.kill('SIGTERM');
    for (const u of users) await u.kill('SIGTERM');
    await dms?.kill('SIGTERM');
    await nats?.kill();
    await sqld?.kill('SIGTERM');
    dir.cleanup();
  });

  it('opens a 2025-11-25 session only for a key the users service knows', async () => {
    if (!nats) return;
    const anon = await connectClient(undefined, { url: `${proxy.url}/mcp` });
    const handle = `session_${Date.now().toString(36)}`;
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: 'S',
    });
    const initialize = (key: string) =>
      fetch(`${proxy.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'k', version: '1' },
          },
        }),
      });
    // Both aggregators (the proxy alternates) refuse a made-up key a session, and grant a real one.
    for (let i = 0; i < 2; i++) {
      const bad = await initialize('lore_sk_made_up_key_000000000000');
      await bad.body?.cancel();
      expect(bad.headers.get('mcp-session-id')).toBeNull();
      const good = await initialize(reg.data.apiKey);
      await good.body?.cancel();
      expect(good.headers.get('mcp-session-id')).toBeTruthy();
    }
  });

  it('gives a 2026-07-28 client the same results as one aggregator, with no affinity', async () => {
    if (!nats) return;
    const anon = await connectClient(undefined, { url: `${proxy.url}/mcp` });
    const handle = `replica_${Date.now().toString(36)}`;
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: 'R',
    });
    const me = await connectClient(undefined, { url: `${proxy.url}/mcp`, key: reg.data.apiKey });
    // A write through one replica is read through the other: every call alternates.
    const u = await ok<{ changed: string[] }>(me, 'agent_update', { bio: 'written through one replica' });
    expect(u.data.changed).toEqual(['bio']);
    const reads = await Promise.all(
      Array.from({ length: 6 }, () =>
        ok<{ agent: { bio: string }; email?: string }>(me, 'agent_profile', { username: handle }),
      ),
    );
    for (const r of reads) {
      expect(r.data.agent.bio).toBe('written through one replica');
      expect(r.data.email).toBe(`${handle}@example.com`);
    }
    expect(
      (await call(anon, 'agent_register', { username: handle, email: 'x@example.com', displayName: 'dup' }))
        .error?.code,
    ).toBe(409);
    expect(proxy.hits[0]).toBeGreaterThan(2);
    expect(proxy.hits[1]).toBeGreaterThan(2);
    expect(usersProxy.hits[0]).toBeGreaterThan(2);
    expect(usersProxy.hits[1]).toBeGreaterThan(2);
  }, 60_000);

  it('handles each event once between the two replicas, not once per replica', async () => {
    if (!nats) return;
    const anon = await connectClient(undefined, { url: `${proxy.url}/mcp` });
    const run = Date.now().toString(36);
    const agents: Array<{ handle: string; client: Awaited<ReturnType<typeof connectClient>> }> = [];
    for (const i of [0, 1, 2, 3, 4]) {
      const handle = `evt_${run}_${i}`;
      const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: `E${i}`,
      });
      agents.push({
        handle,
        client: await connectClient(undefined, { url: `${proxy.url}/mcp`, key: reg.data.apiKey }),
      });
    }
    // 20 DmSent events: each agent writes 4 messages to the next one (the limit is 10 a minute).
    const sends = agents.flatMap((a, i) =>
      [1, 2, 3, 4].map((n) =>
        ok(a.client, 'dm_send', {
          to: agents[(i + 1) % agents.length]!.handle,
          content: `message ${n} from ${a.handle}`,
        }),
      ),
    );
    await Promise.all(sends);

    const handled = async () => {
      let total = 0;
      const per: number[] = [];
      for (const u of users) {
        const text = await (await fetch(u.url.replace(/\/mcp$/, '/metrics'))).text();
        const m =
          /lore_events_handled_total\{[^}]*consumer="users-activity-dms"[^}]*result="ok"[^}]*\} (\d+)/.exec(
            text,
          );
        per.push(Number(m?.[1] ?? 0));
        total += Number(m?.[1] ?? 0);
      }
      return { total, per };
    };
    // Each event handled by exactly one of the two processes (the durable consumer is shared).
    await expect.poll(async () => (await handled()).total, { timeout: 30_000, interval: 200 }).toBe(20);
    // Every sender shows the DM in its activity, read through either replica.
    for (const a of agents) {
      const p = await ok<{ recentActivity: Array<{ kind: string }> }>(agents[0]!.client, 'agent_profile', {
        username: a.handle,
      });
      expect(p.data.recentActivity.map((x) => x.kind)).toContain('dm');
    }
    // Nothing left pending or redelivered on the shared consumer.
    const bus = await NatsBus.connect({
      url: nats.url,
      credentials: opsCredentials(),
      inboxPrefix: '_INBOX.ops',
    });
    try {
      const jsm = await jetstreamManager(bus.connection);
      const info = await jsm.consumers.info('LORE_EVENTS', 'users-activity-dms-replica-test');
      expect(info.num_pending).toBe(0);
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_redelivered).toBe(0);
      expect(info.delivered.consumer_seq).toBe(20);
    } finally {
      await bus.close();
    }
    await new Promise((r) => setTimeout(r, 500));
    expect((await handled()).total).toBe(20);
  }, 90_000);
  it('takes concurrent writes through both replicas on one sqld database: nothing lost, nothing applied twice', async () => {
    if (!nats) return;
    const subjectCount = async (subject: string) => {
      const bus = await NatsBus.connect({
        url: nats.url,
        credentials: opsCredentials(),
        inboxPrefix: '_INBOX.ops',
      });
      try {
        const jsm = await jetstreamManager(bus.connection);
        const info = await jsm.streams.info('LORE_EVENTS', { subjects_filter: subject });
        return (info.state.subjects as Record<string, number> | undefined)?.[subject] ?? 0;
      } finally {
        await bus.close();
      }
    };
    const registeredBefore = await subjectCount('lore.users.agent.registered');
    const updatedBefore = await subjectCount('lore.users.agent.updated');
    const anon = await connectClient(undefined, { url: `${usersProxy.url}/mcp` });
    const run = Date.now().toString(36);
    const handles = Array.from({ length: 30 }, (_, i) => `cw_${run}_${i}`);
    // 30 registrations at once, alternating between the replicas; then 30 updates at once.
    const keys = await Promise.all(
      handles.map(async (handle) => {
        const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
          username: handle,
          email: `${handle}@example.com`,
          displayName: handle,
        });
        return r.data.apiKey;
      }),
    );
    await Promise.all(
      handles.map(async (handle, i) => {
        const c = await connectClient(undefined, { url: `${usersProxy.url}/mcp`, key: keys[i]! });
        await ok(c, 'agent_update', { bio: `bio of ${handle}` });
      }),
    );
    // Each row once in the shared database, with its update.
    const rows = await sqld.query(
      `select handle, bio from agents where handle like 'cw_${run}_%' order by handle`,
    );
    expect(rows).toHaveLength(30);
    for (const [handle, bio] of rows) expect(bio).toBe(`bio of ${handle}`);
    // Each write's event published once (the outboxes of both replicas drained, no duplicates).
    await expect
      .poll(() => subjectCount('lore.users.agent.registered'), { timeout: 15_000 })
      .toBe(registeredBefore + 30);
    await expect
      .poll(() => subjectCount('lore.users.agent.updated'), { timeout: 15_000 })
      .toBe(updatedBefore + 30);
    // A relay marks its rows sent once NATS acknowledged them: the stream can show them a moment before.
    await expect
      .poll(() => sqld.query('select count(*) from lore_outbox where sent_at is null'), { timeout: 15_000 })
      .toEqual([[0]]);
    expect(usersProxy.hits[0]).toBeGreaterThan(20);
    expect(usersProxy.hits[1]).toBeGreaterThan(20);
  }, 90_000);
});
