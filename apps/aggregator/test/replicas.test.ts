import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { call, connectClient, freePort, NatsServerProcess, ok, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from './helpers.js';

/** A round-robin HTTP proxy on loopback: each request goes to the next target. */
function roundRobin(targets: string[]): Promise<{ url: string; server: Server; hits: number[] }> {
  const hits = targets.map(() => 0);
  let next = 0;
  const server = createServer((req, res) => {
    const i = next++ % targets.length;
    hits[i]!++;
    const target = new URL(req.url ?? '/', targets[i]);
    const up = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${a.port}`, server, hits });
    }),
  );
}

describe('two replicas of a service and two aggregators, each pair behind a round-robin proxy', () => {
  const dir = tempDir();
  let nats: NatsServerProcess;
  const users: Spawned[] = [];
  const aggs: Spawned[] = [];
  let usersProxy: Awaited<ReturnType<typeof roundRobin>>;
  let proxy: Awaited<ReturnType<typeof roundRobin>>;

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) {
      if (process.env.CI) throw new Error('nats-server is required under CI');
      return;
    }
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'));
    await nats.start();
    const common = { NATS_URL: nats.url, LORE_LOG_LEVEL: 'warn', LORE_NODE_ID: 'replica-test' };
    // Two processes of the users service: one node id, one database (a shared libSQL file here;
    // a libSQL server in production), one durable consumer per subscription between them.
    for (const n of [1, 2]) {
      users.push(
        await spawnTs(
          join(ROOT, 'packages/users/src/main.ts'),
          [],
          {
            ...common,
            LORE_LOG_LEVEL: 'info',
            LORE_PORT: '0',
            LORE_DATA_DIR: join(dir.path, `users${n}`),
            LORE_USERS_DB_URL: `file:${join(dir.path, 'users-shared.db')}`,
          },
          /"url":"(http[^"]+)"/,
        ),
      );
    }
    usersProxy = await roundRobin(users.map((u) => u.url.replace(/\/mcp$/, '')));
    for (const n of [1, 2]) {
      aggs.push(
        await spawnTs(
          join(ROOT, 'apps/aggregator/src/main.ts'),
          ['start'],
          {
            ...common,
            LORE_PORT: '0',
            LORE_DATA_DIR: join(dir.path, `agg${n}`),
            LORE_SERVICES: `users=${usersProxy.url}/mcp`,
          },
          /Lore is running at (\S+)/,
        ),
      );
    }
    proxy = await roundRobin(aggs.map((a) => a.url.replace(/\/mcp$/, '')));
  }, 90_000);

  afterAll(async () => {
    proxy?.server.close();
    usersProxy?.server.close();
    for (const a of aggs) await a.kill('SIGTERM');
    for (const u of users) await u.kill('SIGTERM');
    await nats?.kill();
    dir.cleanup();
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
});
