import { describe, expect, it } from 'vitest';
import { AnswerQuota } from './quota.js';

describe('answer quota', () => {
  it('allows N per minute and M per day per agent, says when to retry, and can refund', async () => {
    let now = 1_000_000;
    const q = new AnswerQuota(2, 3, () => now);
    expect(await q.take('a')).toBeNull();
    expect(await q.take('a')).toBeNull();
    expect(await q.take('a')).toMatchObject({ window: 'minute', limit: 2, retryAfterSeconds: 60 });
    expect(await q.take('b')).toBeNull();
    now += 30_000;
    expect((await q.take('a'))?.retryAfterSeconds).toBe(30);
    now += 31_000;
    expect(await q.take('a')).toBeNull();
    expect(await q.take('a')).toMatchObject({ window: 'day', limit: 3 });
    await q.refund('a');
    now += 61_000;
    expect(await q.take('a')).toBeNull();
    expect(await new AnswerQuota(0, 0).take('x')).toBeNull();
  });
});
