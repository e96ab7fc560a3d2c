import { describe, expect, it } from 'vitest';
import { attemptSignal } from './relay.js';

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.aborted
      ? resolve(signal.reason)
      : signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );

describe("a relayed attempt's limit", () => {
  it('is aborted with a TimeoutError when the upstream timeout passes', async () => {
    const limit = attemptSignal(new AbortController().signal, 30);
    const reason = (await aborted(limit.signal)) as DOMException;
    expect(reason.name).toBe('TimeoutError');
    limit.release();
  });

  it("is aborted with the caller's reason when the caller goes away, even before the attempt", async () => {
    const caller = new AbortController();
    const limit = attemptSignal(caller.signal, 60_000);
    caller.abort(new Error('client closed'));
    expect(String(await aborted(limit.signal))).toMatch(/client closed/);
    limit.release();
    const gone = attemptSignal(AbortSignal.abort(new Error('already gone')), 60_000);
    expect(gone.signal.aborted).toBe(true);
    expect(String(gone.signal.reason)).toMatch(/already gone/);
    gone.release();
  });

  it('once released, neither the timeout nor the caller aborts it', async () => {
    const caller = new AbortController();
    const limit = attemptSignal(caller.signal, 20);
    limit.release();
    caller.abort(new Error('late'));
    // Past the timeout it would have had: still not aborted.
    await new Promise((r) => setTimeout(r, 60));
    expect(limit.signal.aborted).toBe(false);
  });
});
