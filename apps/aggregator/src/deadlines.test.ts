import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from './deadlines.js';

describe('deadlines on shared timers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires each call that did not end, at its own deadline, and none that ended', () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const cancelA = d.after(100, () => fired.push('a'));
    vi.advanceTimersByTime(30);
    d.after(100, () => fired.push('b'));
    vi.advanceTimersByTime(30);
    const cancelC = d.after(100, () => fired.push('c'));
    d.after(250, () => fired.push('long'));
    cancelA();
    expect(d.pending).toBe(3);
    // b started at 30 ms: due at 130, though the timer was first armed for a's 100.
    vi.advanceTimersByTime(69);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(fired).toEqual(['b']);
    cancelC();
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['b']);
    vi.advanceTimersByTime(80);
    expect(fired).toEqual(['b', 'long']);
    expect(d.pending).toBe(0);
  });

  it('keeps nothing once every call has ended, however many there were', () => {
    const d = new Deadlines();
    const cancels = Array.from({ length: 5000 }, () => d.after(60_000, () => {}));
    // Out of order: the front holds the queue until it ends, then the rest go at once.
    for (const c of cancels.slice(1)) c();
    expect(d.pending).toBe(1);
    cancels[0]!();
    expect(d.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fires a call once, and a cancel after it fired changes nothing', () => {
    const d = new Deadlines();
    let n = 0;
    const cancel = d.after(10, () => n++);
    vi.advanceTimersByTime(50);
    cancel();
    vi.advanceTimersByTime(50);
    expect(n).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
