import { describe, expect, it } from 'vitest';
import { GroupCommit, limiter, settleInPool } from './concurrency.js';

const tick = (ms = 1) => new Promise((r) => setTimeout(r, ms));

describe('settleInPool', () => {
  it('keeps at most `limit` items in flight and attempts every item', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    const failed = await settleInPool(
      Array.from({ length: 50 }, (_, i) => i),
      8,
      async (i) => {
        most = Math.max(most, ++inFlight);
        await tick(i % 3);
        inFlight--;
        seen.push(i);
      },
    );
    expect(failed).toEqual([]);
    expect(most).toBe(8);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('collects failures and goes on with the other items', async () => {
    const done: number[] = [];
    const failed = await settleInPool([1, 2, 3, 4, 5], 2, async (i) => {
      await tick();
      if (i % 2 === 0) throw new Error(`no ${i}`);
      done.push(i);
    });
    expect(done.sort()).toEqual([1, 3, 5]);
    expect(failed.map((f) => [f.item, (f.err as Error).message])).toEqual([
      [2, 'no 2'],
      [4, 'no 4'],
    ]);
  });
});

describe('limiter', () => {
  it('runs at most n calls at once, in the order they came, and passes results and errors through', async () => {
    const gate = limiter(2);
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const run = (i: number) =>
      gate(async () => {
        started.push(i);
        most = Math.max(most, ++inFlight);
        await tick(2);
        inFlight--;
        if (i === 3) throw new Error('three');
        return i * 2;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(run));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      0,
      2,
      4,
      'three',
      8,
      10,
    ]);
    // A failure frees its turn: the gate still lets two through.
    expect(await Promise.all([run(6), run(7)])).toEqual([12, 14]);
  });
});

describe('GroupCommit', () => {
  it('commits what queued up during a commit in the next one, and answers each caller', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, string>(async (items) => {
      batches.push(items);
      await tick(5);
      return items.map((i) => `#${i}`);
    });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => group.add(i)));
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => `#${i}`));
    // The first caller starts a commit alone; the nine that came meanwhile share the next one.
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8, 9]]);
  });

  it('caps a batch at maxBatch', async () => {
    const sizes: number[] = [];
    const group = new GroupCommit<number, number>(async (items) => {
      sizes.push(items.length);
      await tick();
      return items;
    }, 4);
    await Promise.all(Array.from({ length: 11 }, (_, i) => group.add(i)));
    expect(sizes).toEqual([1, 4, 4, 2]);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const group = new GroupCommit<number, number>(async (items) => {
      await tick();
      if (items.includes(3)) throw new Error('constraint failed');
      return items.map((i) => i * 10);
    });
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => group.add(i)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      0,
      10,
      20,
      'constraint failed',
      40,
    ]);
  });
});
