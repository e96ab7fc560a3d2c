import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@lore/schema';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsBus, natsServers } from '../bus/nats.js';
import { createDirectory } from '../network/index.js';
import { RATE_LIMIT_BUCKET, sharedRateLimitStore } from '../rate-limit.js';
import { tempDir } from './index.js';
import { NatsServerProcess } from './nats.js';
import { NatsCluster } from './nats-cluster.js';

const envelope = (n: number): EventEnvelope => ({
  id: randomUUID(),
  subject: 'lore.test.thing.happened',
  occurredAt: new Date().toISOString(),
  producer: { node: 'test', service: 'test' },
  payload: { n },
});

describe('a three-server JetStream cluster on loopback', () => {
  const dir = tempDir('lore-cluster-');
  let cluster: NatsCluster;

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable())
      throw new Error('nats-server is required (Debian: nats-server)');
    cluster = await NatsCluster.start(dir.path);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    dir.cleanup();
  });

  it('takes NATS_URL as a comma-separated server list', () => {
    expect(natsServers(' nats://a:1, nats://b:2 ,nats://c:3')).toEqual([
      'nats://a:1',
      'nats://b:2',
      'nats://c:3',
    ]);
    expect(natsServers('nats://a:1')).toEqual(['nats://a:1']);
    expect(cluster.url.split(',')).toHaveLength(3);
  });

  it('keeps the stream and the KV buckets (directory, rate limits) on three servers, and goes on when one is killed', async () => {
    const bus = await NatsBus.connect({ url: cluster.url, replicas: 3, name: 'cluster-test' });
    try {
      const directory = await createDirectory(bus);
      const jsm = await jetstreamManager(bus.connection);
      const stream = await jsm.streams.info('LORE_EVENTS');
      expect(stream.config.num_replicas).toBe(3);
      expect(stream.cluster?.replicas).toHaveLength(2);
      // The rate-limit bucket is created on the first call a limit counts.
      expect(await sharedRateLimitStore(bus).take('agent-1:read', 100, 60_000, Date.now())).toBe(0);
      for (const bucket of ['lore_handles', 'lore_nodes', RATE_LIMIT_BUCKET]) {
        const status = await (await new Kvm(bus.connection).open(bucket)).status();
        expect(status.replicas).toBe(3);
      }

      const seen: number[] = [];
      await bus.subscribe({ consumer: 'cluster-test', subjects: ['lore.test.>'] }, async (e) => {
        seen.push((e.payload as { n: number }).n);
      });
      await bus.publish(envelope(1));
      await expect.poll(() => seen, { timeout: 10_000 }).toEqual([1]);

      // The stream's leader goes; the other two elect a new one and the client carries on.
      const leader = cluster.node(stream.cluster!.leader!);
      await leader.kill();
      const published: number[] = [];
      for (let n = 2; n <= 6; n++) {
        for (let attempt = 0; ; attempt++) {
          try {
            await bus.publish(envelope(n));
            published.push(n);
            break;
          } catch (err) {
            if (attempt > 100) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }
      // Delivery is at least once: an acknowledgement in flight when the leader died may be lost and
      // its event delivered again (consumers are idempotent on the event id); none is lost.
      await expect.poll(() => [...new Set(seen)], { timeout: 20_000 }).toEqual([1, ...published]);
      expect((await jsm.streams.info('LORE_EVENTS')).cluster?.leader).not.toBe(leader.name);
      await leader.start();
      await cluster.ready();
      await directory.close();
    } finally {
      await bus.close();
    }
  }, 60_000);
});
