import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { RATE_LIMIT_BUCKET, RATE_LIMIT_TTL_MS } from './bus/jetstream-names.js';
import type { RateClass } from './tool.js';

/** The mission's per-agent limits, per minute. */
export const RATE_LIMITS: Record<Exclude<RateClass, 'none'>, number> = {
  read: 100,
  write: 20,
  dm: 10,
  post: 5,
};

/**
 * Where the counts live. One store serves every service and replica that must share a limit:
 * in memory for one process (the all-in-one), JetStream KV across processes.
 */
export interface RateLimitStore {
  /** Counts one call for `id` and returns 0, or returns the seconds to wait without counting it. */
  take(id: string, limit: number, windowMs: number, now: number): Promise<number>;
  /** Gives back the last counted call for `id` (one that ended before doing its work). */
  refund(id: string, windowMs: number, now: number): Promise<void>;
}

/** An exact sliding window per id, in this process. Check-and-count is synchronous, so it never overshoots. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, number[]>();

  async take(id: string, limit: number, windowMs: number, t: number): Promise<number> {
    const stamps = this.windows.get(id) ?? [];
    while (stamps.length && stamps[0]! <= t - windowMs) stamps.shift();
    if (stamps.length >= limit) {
      this.windows.set(id, stamps);
      return Math.max(1, Math.ceil((stamps[0]! + windowMs - t) / 1000));
    }
    stamps.push(t);
    this.windows.set(id, stamps);
    if (this.windows.size > 50_000) this.sweep(t, windowMs);
    return 0;
  }

  async refund(id: string): Promise<void> {
    this.windows.get(id)?.pop();
  }

  private sweep(t: number, windowMs: number) {
    for (const [k, v] of this.windows)
      if (!v.length || v[v.length - 1]! <= t - windowMs) this.windows.delete(k);
  }
}

export { RATE_LIMIT_BUCKET };

/** Tokens of one id's current window that this process has counted in KV and not spent yet. */
interface Lease {
  window: number;
  tokens: number;
  /** The previous window's shared count (read once per window). */
  previous: number | undefined;
  /** The current window's counter as last written or read here (to update it in one round trip). */
  counter: { value: number; revision: number } | undefined;
  /** A lease being taken in the background. */
  refill: Promise<unknown> | undefined;
}

/**
 * Counts in a JetStream KV bucket that every replica of every service shares, so an agent's
 * limit holds in total however many processes serve it. Each id has one counter per window
 * (`<id>.<window index>`), and the limit is checked against a sliding estimate: the previous
 * window's count weighted by how much of it still overlaps, plus the current one. Entries expire
 * with the bucket's TTL.
 *
 * A process does not count each call in KV: it leases a few calls at once (a twentieth of the
 * limit, at least one: 5 of the 100 reads a minute, one of every other class), adding them to the
 * shared counter with one compare-and-set (one round trip while nobody else wrote it since), and
 * spends them locally. When half a lease is spent the next is taken in the background, so a call
 * waits for KV only when its process has no token left. The total never exceeds the limit; a
 * replica may hold up to one lease it does not spend, so across R replicas at most R × lease
 * calls of a window go unused (refused although under the limit).
 */
export class KvRateLimitStore implements RateLimitStore {
  private kv: Promise<KV> | undefined;
  private readonly leases = new Map<string, Lease>();
  /** Leases for one id in this process are taken one after another: races are then only between processes. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket = RATE_LIMIT_BUCKET,
    private readonly ttlMs = RATE_LIMIT_TTL_MS,
    /** A lease is this fraction of the limit (at least one call). */
    private readonly leaseDivisor = 20,
    /** Copies of the bucket on a JetStream cluster: the bus's `replicas` (3 on three servers). */
    private readonly replicas = 1,
  ) {}

  private open(): Promise<KV> {
    // The KV client is loaded with the first bucket: a process without NATS never loads it.
    this.kv ??= import('./bus/provision.js')
      .then(({ openBucket }) =>
        openBucket(this.nc, this.bucket, { ttlMs: this.ttlMs, replicas: this.replicas }),
      )
      .catch((err) => {
        this.kv = undefined;
        throw err;
      });
    return this.kv;
  }

  private leaseSize(limit: number): number {
    return Math.max(1, Math.ceil(limit / this.leaseDivisor));
  }

  take(id: string, limit: number, windowMs: number, now: number): Promise<number> {
    const window = Math.floor(now / windowMs);
    const lease = this.leases.get(id);
    if (lease && lease.window === window && lease.tokens > 0) {
      lease.tokens--;
      const size = this.leaseSize(limit);
      if (size > 1 && lease.tokens <= size / 2 && !lease.refill) {
        lease.refill = this.inTurn(id, () => this.leaseNow(id, limit, windowMs, now))
          .catch(() => 0)
          .finally(() => {
            lease.refill = undefined;
          });
      }
      return Promise.resolve(0);
    }
    return this.inTurn(id, async () => {
      // A lease taken while this call waited for its turn may have tokens to spare.
      const current = this.leases.get(id);
      if (current && current.window === window && current.tokens > 0) {
        current.tokens--;
        return 0;
      }
      const wait = await this.leaseNow(id, limit, windowMs, now);
      if (wait > 0) return wait;
      this.leases.get(id)!.tokens--;
      return 0;
    });
  }

  async refund(id: string, windowMs: number, now: number): Promise<void> {
    const lease = this.leases.get(id);
    if (lease && lease.window === Math.floor(now / windowMs)) {
      // The call's token goes back to this process's lease (it stays counted in KV).
      lease.tokens++;
      return;
    }
    const kv = await this.open();
    const key = `${this.keyOf(id)}.${Math.floor(now / windowMs)}`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await kv.get(key);
      const current = entry && entry.operation === 'PUT' ? Number(entry.string()) || 0 : 0;
      if (!entry || current === 0) return;
      try {
        await kv.update(key, String(current - 1), entry.revision);
        return;
      } catch {
        // Counted meanwhile: read again.
      }
    }
  }

  private keyOf(id: string): string {
    return createHash('sha256').update(id).digest('hex').slice(0, 32);
  }

  private inTurn<T>(id: string, run: () => Promise<T>): Promise<T> {
    const prior = this.queues.get(id) ?? Promise.resolve();
    const next = prior.then(run, run);
    this.queues.set(id, next);
    void next
      .finally(() => {
        if (this.queues.get(id) === next) this.queues.delete(id);
      })
      .catch(() => {});
    return next;
  }

  /** Adds a lease to the shared counter and to this process's tokens, or returns the seconds to wait. */
  private async leaseNow(id: string, limit: number, windowMs: number, now: number): Promise<number> {
    const kv = await this.open();
    const key = this.keyOf(id);
    const index = Math.floor(now / windowMs);
    const into = (now - index * windowMs) / windowMs;
    let lease = this.leases.get(id);
    if (!lease || lease.window !== index) {
      lease = { window: index, tokens: 0, previous: undefined, counter: undefined, refill: undefined };
      this.leases.set(id, lease);
      if (this.leases.size > 50_000) this.sweep(index);
    }
    lease.previous ??= Number((await kv.get(`${key}.${index - 1}`))?.string() ?? 0) || 0;
    const previous = lease.previous;
    for (let attempt = 0; attempt < 50; attempt++) {
      // Try the counter as this process last saw it; read it when that was refused (or never seen).
      let counter = attempt === 0 ? lease.counter : undefined;
      if (!counter) {
        const entry = await kv.get(`${key}.${index}`);
        counter =
          entry && entry.operation === 'PUT'
            ? { value: Number(entry.string()) || 0, revision: entry.revision }
            : { value: 0, revision: 0 };
      }
      const room = Math.floor(limit - previous * (1 - into) - counter.value + 1e-9);
      if (room < 1) {
        lease.counter = counter;
        // When enough of the previous window has slid out, one more fits; at the latest, when this one ends.
        const current = counter.value;
        const freeAt = previous > 0 && current < limit ? 1 - (limit - current) / previous : 1;
        return Math.max(1, Math.ceil(((Math.max(freeAt, into) - into) * windowMs) / 1000));
      }
      const size = Math.min(room, this.leaseSize(limit));
      try {
        const value = counter.value + size;
        const revision =
          counter.revision > 0
            ? await kv.update(`${key}.${index}`, String(value), counter.revision)
            : await kv.create(`${key}.${index}`, String(value));
        lease.counter = { value, revision };
        lease.tokens += size;
        return 0;
      } catch {
        // Another process counted first: read again after a short, random pause.
        lease.counter = undefined;
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
    throw new Error('rate limit store: too much contention on one counter');
  }

  private sweep(window: number) {
    for (const [k, v] of this.leases) if (v.window < window) this.leases.delete(k);
  }
}

const stores = new WeakMap<object, RateLimitStore>();

/**
 * The one store a process uses for a bus: JetStream KV when the bus is NATS (shared by every
 * process on that network), memory otherwise (one process is then the whole deployment).
 */
export function sharedRateLimitStore(bus: { kind: string }): RateLimitStore {
  let store = stores.get(bus);
  if (!store) {
    const nats =
      bus.kind === 'nats' ? (bus as { connection?: NatsConnection; replicas?: number }) : undefined;
    store = nats?.connection
      ? new KvRateLimitStore(nats.connection, RATE_LIMIT_BUCKET, undefined, undefined, nats.replicas ?? 1)
      : new MemoryRateLimitStore();
    stores.set(bus, store);
  }
  return store;
}

/**
 * Per-(agent, class) limits over a store. The services one process hosts share one limiter
 * (see `sharedLimiter` in service.ts); processes share the store.
 */
export class RateLimiter {
  constructor(
    private readonly limits: Record<string, number> = RATE_LIMITS,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
  ) {}

  /** Counts the call and resolves to 0, or to the seconds to wait without counting it. */
  async take(key: string, cls: RateClass): Promise<number> {
    if (cls === 'none') return 0;
    const limit = this.limits[cls];
    if (limit === undefined) return 0;
    return this.store.take(`${cls}:${key}`, limit, this.windowMs, this.now());
  }
}
