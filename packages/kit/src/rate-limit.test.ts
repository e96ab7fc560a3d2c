import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvRateLimitStore } from './rate-limit.js';
import { freePort, NatsServerProcess, tempDir } from './testing/index.js';

/**
 * The KV store leases calls: it writes the shared counter once per lease (a twentieth of the
 * limit), not once per call, and two processes (two connections) still share one limit.
 */
describe.skipIf(!NatsServerProcess.binaryAvailable() && !process.env.CI)(
  'KvRateLimitStore on a real NATS',
  () => {
    const dir = tempDir();
    let nats: NatsServerProcess;
    const connections: NatsConnection[] = [];
    const WINDOW = 60_000;
    // The middle of a window, so that the previous window (empty) does not weigh.
    const now = Math.floor(Date.now() / WINDOW) * WINDOW + WINDOW / 2;

    beforeAll(async () => {
      nats = new NatsServerProcess(await freePort(), join(dir.path, 'js'));
      await nats.start();
      for (let i = 0; i < 2; i++) connections.push(await connect({ servers: nats.url }));
    }, 30_000);

    afterAll(async () => {
      for (const nc of connections) await nc.close();
      await nats.kill();
      dir.cleanup();
    });

    /** The bucket's keys (one counter per id and window). */
    async function keysOf(kv: Awaited<ReturnType<Kvm['open']>>): Promise<string[]> {
      const out: string[] = [];
      for await (const k of await kv.keys()) out.push(k);
      return out;
    }

    it('counts 100 calls with 20 writes, refuses the 101st, and a refunded call is spent locally', async () => {
      const store = new KvRateLimitStore(connections[0]!, 'rl-lease');
      for (let i = 0; i < 100; i++) expect(await store.take('read:a', 100, WINDOW, now + i)).toBe(0);
      // The revision is the stream's sequence: in a bucket of its own, it counts the writes.
      const kv = await new Kvm(connections[0]!).open('rl-lease');
      const keys = await keysOf(kv);
      expect(keys).toHaveLength(1);
      const entry = await kv.get(keys[0]!);
      expect(entry!.string()).toBe('100');
      expect(entry!.revision).toBe(20);
      const wait = await store.take('read:a', 100, WINDOW, now + 100);
      expect(wait).toBeGreaterThan(0);
      await store.refund('read:a', WINDOW, now + 101);
      expect(await store.take('read:a', 100, WINDOW, now + 102)).toBe(0);
      expect((await kv.get(keys[0]!))!.revision).toBe(20);
    });

    it('holds one limit across two processes, never above it, at most a lease and a half each below', async () => {
      const a = new KvRateLimitStore(connections[0]!, 'rl-shared');
      const b = new KvRateLimitStore(connections[1]!, 'rl-shared');
      const results = await Promise.all(
        Array.from({ length: 150 }, (_, i) => (i % 2 ? a : b).take('read:shared', 100, WINDOW, now + i)),
      );
      const allowed = results.filter((w) => w === 0).length;
      expect(allowed).toBeLessThanOrEqual(100);
      // A lease is 5 calls; a process holds at most 7 it may not spend.
      expect(allowed).toBeGreaterThanOrEqual(100 - 2 * 7);
      const kv = await new Kvm(connections[0]!).open('rl-shared');
      const [key] = await keysOf(kv);
      expect(Number((await kv.get(key!))!.string())).toBeLessThanOrEqual(100);
    });

    it('a class limited to one lease of one call writes each call, as before', async () => {
      const store = new KvRateLimitStore(connections[0]!, 'rl-post');
      for (let i = 0; i < 5; i++) expect(await store.take('post:a', 5, WINDOW, now + i)).toBe(0);
      expect(await store.take('post:a', 5, WINDOW, now + 5)).toBeGreaterThan(0);
      const kv = await new Kvm(connections[0]!).open('rl-post');
      const [key] = await keysOf(kv);
      expect((await kv.get(key!))!.string()).toBe('5');
    });
  },
);
