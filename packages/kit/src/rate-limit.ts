import type { RateClass } from './tool.js';

/** The mission's per-agent limits, per minute. */
export const RATE_LIMITS: Record<Exclude<RateClass, 'none'>, number> = {
  read: 100,
  write: 20,
  dm: 10,
  post: 5,
};

/**
 * A sliding-window limiter per (agent, class), kept in this process. Check-and-count is
 * synchronous, so concurrent calls can never overshoot the limit.
 */
export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly limits: Record<string, number> = RATE_LIMITS,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts the call and returns 0, or returns the seconds to wait without counting it. */
  take(key: string, cls: RateClass): number {
    if (cls === 'none') return 0;
    const limit = this.limits[cls];
    if (limit === undefined) return 0;
    const id = `${cls}:${key}`;
    const t = this.now();
    const stamps = this.windows.get(id) ?? [];
    while (stamps.length && stamps[0]! <= t - this.windowMs) stamps.shift();
    if (stamps.length >= limit) {
      this.windows.set(id, stamps);
      return Math.max(1, Math.ceil((stamps[0]! + this.windowMs - t) / 1000));
    }
    stamps.push(t);
    this.windows.set(id, stamps);
    if (this.windows.size > 50_000) this.sweep(t);
    return 0;
  }

  private sweep(t: number) {
    for (const [k, v] of this.windows)
      if (!v.length || v[v.length - 1]! <= t - this.windowMs) this.windows.delete(k);
  }
}
