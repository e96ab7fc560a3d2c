import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { makeContext } from './tool.js';

describe("a handler's context", () => {
  it('works taken apart, as handlers take it (`{ agent, progress, notify, signal }`)', async () => {
    const calls: string[] = [];
    let logs = 0;
    let signals = 0;
    const signal = new AbortController().signal;
    const ctx = makeContext({
      caller: { id: 'a1', handle: 'ada', node: 'n1' },
      ports: { p: 1 },
      get log() {
        logs++;
        return createLogger({ name: 't', level: 'silent' });
      },
      get signal() {
        signals++;
        return signal;
      },
      requestId: 'r1',
      sampling: undefined,
      progress: async (done, total) => {
        calls.push(`progress ${done}/${total}`);
      },
      notify: async (level) => {
        calls.push(`notify ${level}`);
      },
    });
    // Nothing lazy is built until asked for.
    expect([logs, signals]).toEqual([0, 0]);
    const { agent, ports, progress, notify, requestId } = ctx;
    await progress(1, 2);
    await notify('info', {});
    expect(calls).toEqual(['progress 1/2', 'notify info']);
    expect([agent.handle, ports, requestId]).toEqual(['ada', { p: 1 }, 'r1']);
    expect(ctx.signal).toBe(signal);
    expect(signals).toBe(1);
    expect(logs).toBe(0);
  });

  it('refuses `agent` without a caller, and only when asked', () => {
    const ctx = makeContext({
      caller: null,
      ports: {},
      log: createLogger({ name: 't', level: 'silent' }),
      signal: new AbortController().signal,
      requestId: 'r2',
      sampling: undefined,
      progress: async () => {},
      notify: async () => {},
    });
    expect(ctx.caller).toBeNull();
    expect(() => ctx.agent).toThrow(/API key|unauthenticated|401/i);
  });
});
