import { join } from 'node:path';
import { type LoreService, loadNodeIdentity } from '@lore/kit';
import { createBus, type EventBus, natsAccess } from '@lore/kit/bus';
import {
  appFetch,
  type Client,
  call,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  ok,
  tempDir,
  testConfig,
} from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUsersService } from '../src/index.js';

/**
 * Two replicas of the users service, each with its own NATS connection (as two processes
 * would have) over one database and one NATS server: an agent's 100 reads a minute hold in
 * total, not per replica. Runs with `pnpm test:faults` (it starts a nats-server).
 */
describe.skipIf(!NatsServerProcess.binaryAvailable())('rate limits across replicas', () => {
  const dir = tempDir();
  let nats: NatsServerProcess;
  const buses: EventBus[] = [];
  const replicas: LoreService[] = [];

  beforeAll(async () => {
    const auth = new NatsAuthFixture({ nodes: ['limits-node'], dir: dir.path });
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'js'), auth);
    await nats.start();
    const config = testConfig(dir.path, { NATS_URL: nats.url, LORE_NODE_ID: 'limits-node' });
    // The node's key: on NATS, key verification is a request the node signs and checks.
    const node = loadNodeIdentity(config);
    for (let i = 0; i < 2; i++) {
      const bus = await createBus({
        natsUrl: nats.url,
        name: `replica-${i}`,
        ...natsAccess({ NATS_URL: nats.url, ...auth.env('users') }, () => {}),
      });
      buses.push(bus);
      const service = await createUsersService({ config, bus, nodeId: node.id, node });
      await service.start();
      replicas.push(service);
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of replicas) await s.stop();
    for (const b of buses) await b.close();
    await nats.kill();
    dir.cleanup();
  });

  it('allows 100 reads a minute in total across both replicas', async () => {
    const anon = await connectClient(appFetch(replicas[0]!.app));
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: 'busy_reader',
      email: 'busy@example.com',
      displayName: 'Busy reader',
    });
    const clients: Client[] = [];
    for (const r of replicas) clients.push(await connectClient(appFetch(r.app), { key: reg.data.apiKey }));
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        call(clients[i % 2]!, 'agent_profile', { username: 'busy_reader' }),
      ),
    );
    const allowed = results.filter((r) => !r.error).length;
    const limited = results.filter((r) => r.error?.code === 429);
    process.stderr.write(
      `limits across replicas: ${allowed} of 150 reads allowed, ${limited.length} refused with 429\n`,
    );
    expect(allowed).toBe(100);
    expect(limited).toHaveLength(50);
    expect(limited[0]!.error?.data?.retryAfterSeconds).toBeGreaterThan(0);
    // Each replica served some of the allowed reads: the count is shared, not per replica.
    const perReplica = [0, 1].map((k) => results.filter((r, i) => i % 2 === k && !r.error).length);
    expect(perReplica.every((n) => n > 0 && n < 100)).toBe(true);
  }, 60_000);
});
