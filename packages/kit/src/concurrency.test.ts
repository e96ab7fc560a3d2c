import { describe, expect, it } from 'vitest';
import { BackgroundWork, GroupCommit, limiter, settleInPool } from './concurrency.js';

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

describe('BackgroundWork', () => {
  const quietWork = (work: () => Promise<void>, failures: unknown[] = [], retryMs = 20) =>
    new BackgroundWork(work, { quietMs: 30, retryMs, onFailure: (err) => failures.push(err) });

  it('starts once wakes pause for the quiet period, and runs once for a burst of them', async () => {
    let runs = 0;
    const bg = quietWork(async () => {
      runs++;
    });
    for (let i = 0; i < 5; i++) bg.wake();
    expect(bg.waking).toBe(true);
    expect(runs).toBe(0);
    await bg.settled();
    expect(runs).toBe(1);
    await bg.stop();
  });

  it('runs once more when woken while running, never two at once', async () => {
    let runs = 0;
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => {};
    const bg = quietWork(async () => {
      runs++;
      most = Math.max(most, ++inFlight);
      if (runs === 1) await new Promise<void>((r) => (release = r));
      inFlight--;
    });
    bg.wake(0);
    bg.wake(0);
    bg.wake(0);
    release();
    await bg.settled();
    expect(runs).toBe(2);
    expect(most).toBe(1);
    await bg.stop();
  });

  it('tells a failure and tries again after the retry delay', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const bg = quietWork(async () => {
      runs++;
      if (runs === 1) throw new Error('database closed');
    }, failures);
    bg.wake(0);
    await bg.settled();
    expect(failures.map((e) => (e as Error).message)).toEqual(['database closed']);
    await expect.poll(() => runs).toBe(2);
    await bg.stop();
  });

  it('after stop starts nothing and tells no failure of the run it stopped', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    let release: () => void = () => {};
    const bg = quietWork(async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
      throw new Error('closed under a stopping service');
    }, failures);
    bg.wake(0);
    const stopped = bg.stop();
    expect(bg.stopping).toBe(true);
    release();
    await stopped;
    bg.wake(0);
    bg.retryLater();
    await bg.settled();
    expect(runs).toBe(1);
    expect(failures).toEqual([]);
  });
});
