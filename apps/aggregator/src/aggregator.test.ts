import type { CallInfo } from '@lore/kit';
import { createLogger } from '@lore/kit';
import type { Tool } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { Aggregator } from './aggregator.js';
import { withRetries } from './retries.js';
import { Upstream } from './upstream.js';
import { readUpstreams } from './upstream-config.js';

const log = createLogger({ name: 't', level: 'silent' });
const info = (): CallInfo => ({
  token: null,
  era: 'modern',
  requestId: 'r1',
  signal: new AbortController().signal,
  sampling: undefined,
  progress: async () => {},
});

/** An upstream whose transport fails the first `failures` calls. */
function flaky(name: string, tools: Tool[], failures: number) {
  let calls = 0;
  const u = {
    name,
    opts: { name, forwardIdentity: false },
    tools,
    prompts: [],
    resources: [],
    state: 'up',
    get up() {
      return true;
    },
    get calls() {
      return calls;
    },
    async check() {
      return false;
    },
    async close() {},
    async call() {
      calls++;
      if (calls <= failures) throw new Error('fetch failed: ECONNRESET');
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  };
  return u as unknown as Upstream & { calls: number };
}

const tool = (name: string, annotations: Tool['annotations']): Tool => ({
  name,
  inputSchema: { type: 'object' },
  annotations,
});

describe('retries', () => {
  it('retries a read-only or idempotent tool after a transport failure', async () => {
    const u = flaky(
      'svc',
      [tool('read_it', { readOnlyHint: true }), tool('put_it', { idempotentHint: true })],
      2,
    );
    const agg = new Aggregator([u], { log, retry: { attempts: 3, deadlineMs: 5000, baseDelayMs: 5 } });
    const r = await agg.callTool('read_it', {}, info());
    expect(r).toMatchObject({ content: [{ text: 'ok' }] });
    expect(u.calls).toBe(3);
  });

  it('never retries a tool that is neither read-only nor idempotent', async () => {
    const u = flaky('svc', [tool('send_it', { readOnlyHint: false, idempotentHint: false })], 1);
    const agg = new Aggregator([u], { log, retry: { attempts: 3, deadlineMs: 5000, baseDelayMs: 5 } });
    const r = (await agg.callTool('send_it', {}, info())) as {
      isError?: boolean;
      _meta?: { 'lore/error': { code: number } };
    };
    expect(r.isError).toBe(true);
    expect(r._meta?.['lore/error'].code).toBe(503);
    expect(u.calls).toBe(1);
  });

  it('gives up at the deadline', async () => {
    const u = flaky('svc', [tool('read_it', { readOnlyHint: true })], 100);
    const agg = new Aggregator([u], { log, retry: { attempts: 100, deadlineMs: 200, baseDelayMs: 50 } });
    const t0 = Date.now();
    const r = (await agg.callTool('read_it', {}, info())) as { isError?: boolean };
    expect(r.isError).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe('withRetries', () => {
  const settings = { attempts: 3, deadlineMs: 5000, baseDelayMs: 5 };
  /** A logger getter that counts how often a logger was asked for, and the retries it heard of. */
  const counting = () => {
    const seen = { built: 0, retries: 0 };
    const logger = createLogger({ name: 't', level: 'debug' });
    logger.debug = ((_: unknown, msg: string) => {
      if (msg === 'retrying idempotent call') seen.retries++;
    }) as typeof logger.debug;
    return {
      seen,
      log: () => {
        seen.built++;
        return logger;
      },
    };
  };

  it('runs a call that succeeds once, building no logger for it', async () => {
    const { seen, log } = counting();
    let calls = 0;
    const r = await withRetries(
      settings,
      true,
      async () => ++calls,
      new AbortController().signal,
      log,
      Date.now() + 5000,
    );
    expect(r).toBe(1);
    expect(calls).toBe(1);
    expect(seen.built).toBe(0);
  });

  it('counts the first failure as an attempt: three attempts in all, two retries logged', async () => {
    const { seen, log } = counting();
    let calls = 0;
    const failing = async (): Promise<number> => {
      calls++;
      throw new Error(`fetch failed (${calls})`);
    };
    await expect(
      withRetries(settings, true, failing, new AbortController().signal, log, Date.now() + 5000),
    ).rejects.toThrow('fetch failed (3)');
    expect(calls).toBe(3);
    expect(seen.retries).toBe(2);
    expect(seen.built).toBe(1);
  });

  it('returns what a retry answers after a first failure', async () => {
    const { log } = counting();
    let calls = 0;
    const r = await withRetries(
      settings,
      true,
      async () => {
        if (++calls === 1) throw new Error('ECONNRESET');
        return 'second';
      },
      new AbortController().signal,
      log,
      Date.now() + 5000,
    );
    expect(r).toBe('second');
    expect(calls).toBe(2);
  });

  it('never retries a protocol refusal, a cancelled call or a call past its deadline', async () => {
    const refusal = new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad arguments');
    for (const [err, signal, deadline] of [
      [refusal, new AbortController().signal, Date.now() + 5000],
      [new Error('ECONNRESET'), AbortSignal.abort(), Date.now() + 5000],
      [new Error('ECONNRESET'), new AbortController().signal, Date.now()],
    ] as const) {
      const { seen, log } = counting();
      let calls = 0;
      const failing = async (): Promise<never> => {
        calls++;
        throw err;
      };
      await expect(withRetries(settings, true, failing, signal, log, deadline)).rejects.toBe(err);
      expect(calls).toBe(1);
      expect(seen.built).toBe(0);
    }
  });
});

describe('a hung read-only tool', () => {
  it('ends at the retry deadline, not after attempts × the upstream timeout', async () => {
    let calls = 0;
    const hung = new Upstream({
      name: 'svc',
      forwardIdentity: true,
      timeoutMs: 500,
      backend: {
        info: { name: 'svc', version: '1' },
        listTools: () => [tool('read_it', { readOnlyHint: true })],
        callTool: (_n, _a, call) =>
          new Promise((_, reject) => {
            calls++;
            call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
          }),
      },
    });
    await hung.check();
    const agg = new Aggregator([hung], { log, retry: { attempts: 5, deadlineMs: 600, baseDelayMs: 10 } });
    const t0 = Date.now();
    const r = (await agg.callTool('read_it', {}, info())) as {
      isError?: boolean;
      _meta?: { 'lore/error': { code: number } };
    };
    const ms = Date.now() - t0;
    expect(r._meta?.['lore/error'].code).toBe(503);
    // Two attempts: 500 ms, then the ~90 ms left of the deadline, not another 500 ms.
    expect(calls).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(850);
  });

  it('does not cut an idempotent write at the retry deadline: an upload may take its time', async () => {
    const slow = new Upstream({
      name: 'svc',
      forwardIdentity: true,
      timeoutMs: 2_000,
      backend: {
        info: { name: 'svc', version: '1' },
        listTools: () => [tool('put_it', { readOnlyHint: false, idempotentHint: true })],
        callTool: () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ content: [{ type: 'text', text: 'stored' }] }), 400),
          ),
      },
    });
    await slow.check();
    const agg = new Aggregator([slow], { log, retry: { attempts: 3, deadlineMs: 100, baseDelayMs: 10 } });
    const r = await agg.callTool('put_it', {}, info());
    expect(r).toMatchObject({ content: [{ text: 'stored' }] });
  });

  it('aborts the call in process when its time is up, and answers 503', async () => {
    let reason: unknown;
    const hung = new Upstream({
      name: 'svc',
      forwardIdentity: true,
      timeoutMs: 100,
      backend: {
        info: { name: 'svc', version: '1' },
        listTools: () => [tool('send_it', { readOnlyHint: false, idempotentHint: false })],
        callTool: (_n, _a, call) =>
          new Promise((_, reject) => {
            call.signal.addEventListener(
              'abort',
              () => {
                reason = call.signal.reason;
                reject(call.signal.reason);
              },
              { once: true },
            );
          }),
      },
    });
    await hung.check();
    const agg = new Aggregator([hung], { log });
    const r = (await agg.callTool('send_it', {}, info())) as {
      _meta?: { 'lore/error': { code: number; message: string } };
    };
    expect(r._meta?.['lore/error'].code).toBe(503);
    expect(r._meta?.['lore/error'].message).toMatch(/timed out after 100 ms/);
    expect(String(reason)).toMatch(/timed out after 100 ms/);
  });

  it('hands the backend a signal that follows the caller and the timeout, however late it asks', async () => {
    const seen: { early?: AbortSignal; late?: () => AbortSignal } = {};
    let release: (() => void) | undefined;
    const svc = new Upstream({
      name: 'svc',
      forwardIdentity: true,
      timeoutMs: 100,
      backend: {
        info: { name: 'svc', version: '1' },
        listTools: () => [tool('early', { readOnlyHint: false }), tool('late', { readOnlyHint: false })],
        callTool: (name, _a, call) =>
          new Promise((resolve) => {
            if (name === 'early') seen.early = call.signal;
            else seen.late = () => call.signal;
            release = () => resolve({ content: [] });
          }),
      },
    });
    await svc.check();
    const agg = new Aggregator([svc], { log });
    // The caller goes away: a signal taken before then is aborted with the caller's reason.
    const caller = new AbortController();
    const pending = agg.callTool('early', {}, { ...info(), signal: caller.signal });
    await vi.waitFor(() => expect(seen.early).toBeDefined());
    expect(seen.early!.aborted).toBe(false);
    caller.abort(new Error('client left'));
    expect(seen.early!.aborted).toBe(true);
    expect(String(seen.early!.reason)).toMatch(/client left/);
    release!();
    await pending.catch(() => {});
    // Asked for only after the timeout: born aborted, with the timeout as its reason.
    const r = (await agg.callTool('late', {}, info())) as { _meta?: { 'lore/error': { code: number } } };
    expect(r._meta?.['lore/error'].code).toBe(503);
    const late = seen.late!();
    expect(late.aborted).toBe(true);
    expect(String(late.reason)).toMatch(/timed out after 100 ms/);
  });

  it('is aborted when the caller cancels', async () => {
    let aborted = false;
    const hung = new Upstream({
      name: 'svc',
      forwardIdentity: true,
      backend: {
        info: { name: 'svc', version: '1' },
        listTools: () => [tool('read_it', { readOnlyHint: true })],
        callTool: (_n, _a, call) =>
          new Promise((_, reject) => {
            call.signal.addEventListener(
              'abort',
              () => {
                aborted = true;
                reject(call.signal.reason);
              },
              { once: true },
            );
          }),
      },
    });
    await hung.check();
    const agg = new Aggregator([hung], { log });
    const cancel = new AbortController();
    const pending = agg.callTool('read_it', {}, { ...info(), signal: cancel.signal });
    setTimeout(() => cancel.abort(new Error('cancelled by the client')), 50);
    await expect(pending).rejects.toThrow(/cancelled/);
    expect(aborted).toBe(true);
  });
});

describe('upstream configuration', () => {
  it('reads LORE_SERVICES and refuses bad entries with the entry named', () => {
    expect(
      readUpstreams({ LORE_SERVICES: 'users=http://users:8080/mcp, docs=http://docs:8080/mcp' }),
    ).toMatchObject([
      { name: 'users', url: 'http://users:8080/mcp', kind: 'lore' },
      { name: 'docs', kind: 'lore' },
    ]);
    expect(() => readUpstreams({ LORE_SERVICES: 'users' })).toThrow(/name=url/);
    expect(() => readUpstreams({ LORE_SERVICES: 'users=not a url' })).toThrow(/users=not a url/);
    expect(() => readUpstreams({ LORE_SERVICES: 'a=http://x/mcp,a=http://y/mcp' })).toThrow(/twice/);
  });
});
