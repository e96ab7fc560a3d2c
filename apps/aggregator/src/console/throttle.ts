import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Failed console sign-ins, counted per client address and per key tried, in a fixed window.
 * Keys are long and random, so guessing is hopeless anyway; the throttle keeps a script from
 * turning the sign-in form into a free oracle or a way to load the users service.
 */
export class SignInThrottle {
  private readonly failures = new LRUCache<string, { count: number; until: number }>({ max: 10_000 });

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `address` or `key` may try again, or 0 when they may now. */
  retryAfter(address: string, key: string): number {
    const t = this.now();
    let wait = 0;
    for (const id of this.ids(address, key)) {
      const e = this.failures.get(id);
      if (e && e.until > t && e.count >= this.maxFailures) wait = Math.max(wait, e.until - t);
    }
    return Math.ceil(wait / 1000);
  }

  fail(address: string, key: string): void {
    const t = this.now();
    for (const id of this.ids(address, key)) {
      const e = this.failures.get(id);
      if (e && e.until > t) e.count++;
      else this.failures.set(id, { count: 1, until: t + this.windowMs });
    }
  }

  private ids(address: string, key: string): string[] {
    const ids = [`a:${address}`];
    if (key) ids.push(`k:${createHash('sha256').update(key).digest('hex')}`);
    return ids;
  }
}
