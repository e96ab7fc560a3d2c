import { createHash } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
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

export const RATE_LIMIT_BUCKET = 'lore-rate-limits';

/**
 * Counts in a JetStream KV bucket that every replica of every service shares, so an agent's
 * limit holds in total however many processes serve it. Each id has one counter per window
 * (`<id>.<window index>`), incremented with compare-and-set (a lost race retries), and the
 * limit is checked against a sliding estimate: the previous window's count weighted by how
 * much of it still overlaps, plus the current one. Entries expire with the bucket's TTL.
 */
export class KvRateLimitStore implements RateLimitStore {
  private kv: Promise<KV> | undefined;
  /** Takes for one id in this process run one after another: races are then only between processes. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket = RATE_LIMIT_BUCKET,
    private readonly ttlMs = 3 * 60_000,
  ) {}

  private open(): Promise<KV> {
    this.kv ??= new Kvm(this.nc).create(this.bucket, { history: 1, ttl: this.ttlMs }).catch((err) => {
      this.kv = undefined;
      throw err;
    });
    return this.kv;
  }

  take(id: string, limit: number, windowMs: number, now: number): Promise<number> {
    const prior = this.queues.get(id) ?? Promise.resolve();
    const next = prior.then(
      () => this.takeNow(id, limit, windowMs, now),
      () => this.takeNow(id, limit, windowMs, now),
    );
    this.queues.set(id, next);
    void next
      .finally(() => {
        if (this.queues.get(id) === next) this.queues.delete(id);
      })
      .catch(() => {});
    return next;
  }

  async refund(id: string, windowMs: number, now: number): Promise<void> {
    const kv = await this.open();
    const key = `${createHash('sha256').update(id).digest('hex').slice(0, 32)}.${Math.floor(now / windowMs)}`;
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

  private async takeNow(id: string, limit: number, windowMs: number, now: number): Promise<number> {
    const kv = await this.open();
    const key = createHash('sha256').update(id).digest('hex').slice(0, 32);
    const index = Math.floor(now / windowMs);
    const into = (now - index * windowMs) / windowMs;
    const previous = Number((await kv.get(`${key}.${index - 1}`))?.string() ?? 0) || 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await kv.get(`${key}.${index}`);
      const current = entry && entry.operation === 'PUT' ? Number(entry.string()) || 0 : 0;
      if (previous * (1 - into) + current >= limit) {
        // When enough of the previous window has slid out, one more fits; at the latest, when this one ends.
        const freeAt = previous > 0 && current < limit ? 1 - (limit - current) / previous : 1;
        return Math.max(1, Math.ceil(((Math.max(freeAt, into) - into) * windowMs) / 1000));
      }
      try {
        if (entry && entry.operation === 'PUT')
          await kv.update(`${key}.${index}`, String(current + 1), entry.revision);
        else await kv.create(`${key}.${index}`, '1');
        return 0;
      } catch {
        // Another process counted first: read again after a short, random pause.
        await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
      }
    }
    throw new Error('rate limit store: too much contention on one counter');
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
    const nc = bus.kind === 'nats' ? (bus as { connection?: NatsConnection }).connection : undefined;
    store = nc ? new KvRateLimitStore(nc) : new MemoryRateLimitStore();
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
