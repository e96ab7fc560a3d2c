/**
 * A per-agent allowance of `answer_query` calls: at most `perMinute` in any 60 s and
 * `perDay` in any 24 h (sliding windows, kept in this process). 0 means no limit.
 */
export class AnswerQuota {
  private readonly calls = new Map<string, number[]>();

  constructor(
    readonly perMinute: number,
    readonly perDay: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a call and returns null, or returns why not and when to retry, without counting. */
  take(agentId: string): { retryAfterSeconds: number; window: 'minute' | 'day'; limit: number } | null {
    const t = this.now();
    const stamps = (this.calls.get(agentId) ?? []).filter((s) => s > t - 86_400_000);
    const check = (limit: number, windowMs: number, window: 'minute' | 'day') => {
      if (!limit) return null;
      const inWindow = stamps.filter((s) => s > t - windowMs);
      if (inWindow.length < limit) return null;
      // The oldest call that must leave the window before one more fits.
      const oldest = inWindow[inWindow.length - limit]!;
      return { retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - t) / 1000)), window, limit };
    };
    const refused = check(this.perDay, 86_400_000, 'day') ?? check(this.perMinute, 60_000, 'minute');
    if (refused) {
      this.calls.set(agentId, stamps);
      return refused;
    }
    stamps.push(t);
    this.calls.set(agentId, stamps);
    if (this.calls.size > 50_000) this.sweep(t);
    return null;
  }

  /** Gives back the last call (one that ended before doing the work, e.g. to ask the client's model first). */
  refund(agentId: string): void {
    this.calls.get(agentId)?.pop();
  }

  private sweep(t: number) {
    for (const [k, v] of this.calls)
      if (!v.length || v[v.length - 1]! <= t - 86_400_000) this.calls.delete(k);
  }
}
