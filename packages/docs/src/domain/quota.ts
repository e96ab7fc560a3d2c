import { MemoryRateLimitStore, type RateLimitStore } from '@lore/kit';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * A per-agent allowance of `answer_query` calls: at most `perMinute` in any 60 s and `perDay`
 * in any 24 h. The counts live in the given store — the kit's shared one, so the quota holds
 * in total across the replicas of the docs service. 0 means no limit.
 */
export class AnswerQuota {
  constructor(
    readonly perMinute: number,
    readonly perDay: number,
    private readonly now: () => number = Date.now,
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
  ) {}

  /** Counts a call and resolves to null, or to why not and when to retry, without counting. */
  async take(
    agentId: string,
  ): Promise<{ retryAfterSeconds: number; window: 'minute' | 'day'; limit: number } | null> {
    const t = this.now();
    if (this.perMinute) {
      const wait = await this.store.take(`answer-minute:${agentId}`, this.perMinute, MINUTE, t);
      if (wait) return { retryAfterSeconds: wait, window: 'minute', limit: this.perMinute };
    }
    if (this.perDay) {
      const wait = await this.store.take(`answer-day:${agentId}`, this.perDay, DAY, t);
      if (wait) {
        // The minute's count was taken for a call that will not run.
        if (this.perMinute) await this.store.refund(`answer-minute:${agentId}`, MINUTE, t);
        return { retryAfterSeconds: wait, window: 'day', limit: this.perDay };
      }
    }
    return null;
  }

  /** Gives back the last call (one that ended before doing the work, e.g. to ask the client's model first). */
  async refund(agentId: string): Promise<void> {
    const t = this.now();
    if (this.perMinute) await this.store.refund(`answer-minute:${agentId}`, MINUTE, t);
    if (this.perDay) await this.store.refund(`answer-day:${agentId}`, DAY, t);
  }
}
