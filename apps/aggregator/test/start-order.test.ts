/**
 * In distributed mode the aggregator may come up before the users service (Kubernetes starts
 * pods in any order, `pnpm dev` starts them side by side): it waits for users to create the
 * node's owner instead of exiting, and serves once users answers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, NatsAuthFixture, NatsServerProcess, tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from './helpers.js';

describe('the aggregator started before the users service', () => {
  const dir = tempDir('lore-start-order-');
  const auth = new NatsAuthFixture({ nodes: ['start-order'], dir: dir.path });
  let nats: NatsServerProcess | undefined;
  let users: Spawned | undefined;
  let agg: Spawned | undefined;

  afterAll(async () => {
    await agg?.kill('SIGTERM');
    await users?.kill('SIGTERM');
    await nats?.kill();
    dir.cleanup();
  });

  it('waits for users to create the owner, then serves', async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    await nats.start();
    const usersPort = await freePort();
    const env = {
      NATS_URL: nats.url,
      LORE_NODE_ID: 'start-order',
      LORE_DATA_DIR: join(dir.path, 'node'),
      LORE_RATE_LIMITS: 'false',
    };
    const aggData = join(dir.path, 'agg');
    // The aggregator first, pointed at a users service that is not there yet.
    let output = '';
    const aggStarting = spawnTs(
      join(ROOT, 'apps/aggregator/src/main.ts'),
      ['start'],
      {
        ...env,
        LORE_LOG_LEVEL: 'warn',
        LORE_PORT: '0',
        LORE_DATA_DIR: aggData,
        LORE_HEALTH_INTERVAL_MS: '250',
        LORE_SERVICES: `users=http://127.0.0.1:${usersPort}/mcp`,
      },
      /Lore is running at (\S+)/,
      120_000,
      (out) => {
        output = out;
      },
    );
    let exited: Error | undefined;
    aggStarting.catch((err: Error) => {
      exited = err;
    });
    // It neither exits nor serves while users is away: it says it is waiting, twice at least.
    await expect
      .poll(
        () => exited?.message ?? output.split('waiting for the users service to create the owner').length - 1,
        {
          timeout: 60_000,
          interval: 100,
        },
      )
      .toBeGreaterThanOrEqual(2);
    const ownerKey = join(aggData, 'owner.key');
    expect(existsSync(ownerKey)).toBe(false);
    users = await spawnTs(
      join(ROOT, 'packages/users/src/main.ts'),
      [],
      { ...env, ...auth.env('users'), LORE_LOG_LEVEL: 'info', LORE_PORT: String(usersPort) },
      /"url":"(http[^"]+)"/,
      60_000,
    );
    agg = await aggStarting;
    expect(readFileSync(ownerKey, 'utf8').trim()).toMatch(/\S{20,}/);
    const health = await fetch(new URL('/healthz', agg.url));
    expect(health.ok).toBe(true);
  }, 240_000);
});
