import { freePort, tempDir, testConfig } from '@lore/kit/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Distributed, startDistributed } from '../src/index.js';
import { FIXTURE, type Spawned, spawnTs } from './helpers.js';

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

async function client(url: string, era: 'modern' | 'legacy', onListChanged?: () => void) {
  const c = new Client(
    { name: 'dist-test', version: '1.0.0' },
    {
      ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      capabilities: { sampling: {} },
      ...(onListChanged ? { listChanged: { tools: { onChanged: () => onListChanged() } } } : {}),
    },
  );
  c.setRequestHandler('sampling/createMessage', async (req) => ({
    role: 'assistant',
    model: 'test-model',
    content: {
      type: 'text',
      text: `42 (asked: ${(req.params.messages[0]!.content as { text: string }).text})`,
    },
  }));
  // A 2025-11-25 session is opened only for a request that carries a key; the aggregator in
  // distributed mode passes it to upstreams that check it (these fixtures do not).
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: 'Bearer lore_sk_distributed_test' } },
    }),
  );
  return c;
}

describe('aggregator in distributed mode, upstreams as separate processes', () => {
  const dir = tempDir();
  let alpha: Spawned;
  let beta: Spawned;
  let betaPort: number;
  let agg: Distributed;
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    betaPort = await freePort();
    [alpha, beta] = await Promise.all([
      spawnTs(FIXTURE, ['alpha'], {}),
      spawnTs(FIXTURE, ['beta', '--port', String(betaPort)], {}),
    ]);
    const config = testConfig(dir.path);
    agg = await startDistributed(config, {
      healthIntervalMs: 300,
      upstreams: [
        { name: 'alpha', url: alpha.url, kind: 'external', forwardAuthorization: false, timeoutMs: 20_000 },
        { name: 'beta', url: beta.url, kind: 'external', forwardAuthorization: false, timeoutMs: 20_000 },
        {
          name: 'gamma',
          command: ['npx', 'tsx', '--conditions=development', FIXTURE, 'gamma', '--stdio'],
          kind: 'external',
          prefix: 'g',
          forwardAuthorization: false,
          timeoutMs: 20_000,
        },
      ],
    });
    const { serveHttp } = await import('@lore/kit');
    const http = await serveHttp(agg.app, config, 0);
    url = `${http.url}/mcp`;
    close = http.close;
  }, 60_000);

  afterAll(async () => {
    await close?.();
    await agg?.close();
    await alpha?.kill();
    await beta?.kill();
    dir.cleanup();
  });

  it('mounts HTTP and stdio upstreams; a clashing name gets the later upstream as prefix', async () => {
    const c = await client(url, 'modern');
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo', 'beta_echo', 'g_echo', 'slow_count', 'beta_slow_count']),
    );
    expect(textOf(await c.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('alpha: hi');
    expect(textOf(await c.callTool({ name: 'beta_echo', arguments: { text: 'hi' } }))).toBe('beta: hi');
    expect(textOf(await c.callTool({ name: 'g_echo', arguments: { text: 'hi' } }))).toBe('gamma: hi');
  });

  it('never sends the caller’s key to an external upstream, but passes request id and trace context', async () => {
    const c = new Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: {
          headers: {
            Authorization: 'Bearer lore_sk_secret',
            traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          },
        },
      }),
    );
    const seen = JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} })));
    expect(seen.token).toBeNull();
    expect(seen.requestId).toBeTruthy();
    expect(seen.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(seen.traceparent).not.toContain('b7ad6b7169203331');
  });

  it('passes progress through to the client', async () => {
    const c = await client(url, 'modern');
    const seen: number[] = [];
    const r = await c.callTool(
      { name: 'slow_count', arguments: { n: 4 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(textOf(r)).toBe('counted to 4');
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('stops upstream work when the client cancels', async () => {
    const c = await client(url, 'modern');
    const before = Number(textOf(await c.callTool({ name: 'cancellations', arguments: {} })));
    const ac = new AbortController();
    const pending = c.callTool({ name: 'wait_for_cancel', arguments: {} }, { signal: ac.signal });
    // The upstream has the call in hand before the client gives up on it.
    await expect
      .poll(async () => Number(textOf(await c.callTool({ name: 'waiting', arguments: {} }))))
      .toBeGreaterThan(0);
    ac.abort();
    await expect(pending).rejects.toThrow();
    await expect
      .poll(async () => Number(textOf(await c.callTool({ name: 'cancellations', arguments: {} }))), {
        timeout: 5000,
      })
      .toBe(before + 1);
  });

  it.each(['modern', 'legacy'] as const)(
    'lets an upstream ask the %s client’s model, through the aggregator',
    async (era) => {
      const c = await client(url, era);
      const r = await c.callTool({ name: 'ask_model', arguments: { question: 'meaning of life?' } });
      expect(textOf(r)).toBe('model said: 42 (asked: meaning of life?)');
    },
  );

  it('drops a dead upstream’s tools, answers its calls with a quick 503, keeps the others, and restores it', async () => {
    let changes = 0;
    const _session = await client(url, 'legacy', () => changes++);
    const modern = await client(url, 'modern');
    await beta.kill();
    await expect
      .poll(async () => (await modern.listTools()).tools.map((t) => t.name).includes('beta_echo'), {
        timeout: 5000,
      })
      .toBe(false);
    const t0 = performance.now();
    const r = (await modern.callTool({ name: 'beta_echo', arguments: { text: 'x' } })) as CallToolResult;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.isError).toBe(true);
    expect(
      (r._meta as { 'lore/error': { code: number; data: { retryAfterSeconds: number } } })['lore/error'],
    ).toMatchObject({
      code: 503,
      data: { retryAfterSeconds: expect.any(Number) },
    });
    expect(textOf(await modern.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe(
      'alpha: still here',
    );
    await expect.poll(() => changes, { timeout: 5000 }).toBeGreaterThan(0);
    const seenBefore = changes;
    beta = await spawnTs(FIXTURE, ['beta', '--port', String(betaPort)], {});
    await expect
      .poll(async () => (await modern.listTools()).tools.map((t) => t.name).includes('beta_echo'), {
        timeout: 8000,
      })
      .toBe(true);
    expect(textOf(await modern.callTool({ name: 'beta_echo', arguments: { text: 'back' } }))).toBe(
      'beta: back',
    );
    await expect.poll(() => changes, { timeout: 5000 }).toBeGreaterThan(seenBefore);
  }, 30_000);

  it('shows upstreams and tools on the catalog page and in /catalog', async () => {
    const base = url.replace(/\/mcp$/, '');
    const cat = (await (await fetch(`${base}/catalog`)).json()) as {
      upstreams: Array<{ name: string; state: string }>;
      tools: Array<{ name: string; service: string }>;
    };
    expect(cat.upstreams.map((u) => u.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(cat.tools.find((t) => t.name === 'g_echo')?.service).toBe('gamma');
    const html = await (await fetch(`${base}/`)).text();
    expect(html).toContain('<code>beta_echo</code>');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/lore_upstream_up\{upstream="alpha"\} 1/);
    expect(metrics).toMatch(/lore_aggregator_calls_total\{upstream="alpha",tool="echo",outcome="ok"\} \d+/);
  });
});
