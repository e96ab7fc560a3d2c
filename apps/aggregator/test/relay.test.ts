import { createHttpApp, type HttpServerHandle, type McpBackend, serveHttp } from '@lore/kit';
import { connectClient, tempDir, testConfig } from '@lore/kit/testing';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Distributed, startDistributed } from '../src/index.js';
import { RELAYED_BY } from '../src/relay.js';

/** What an upstream saw of a call: who, from where, in which trace. */
interface Seen {
  upstream: string;
  tool: string;
  token: string | null;
  ip?: string;
  traceparent?: string;
  requestId: string;
}

const TOOLS: Tool[] = [
  {
    name: 'whoami',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'note',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
];

/** A real Lore HTTP endpoint whose tools answer with what they saw; `failNext` makes its next tools/call answer 503. */
async function upstream(name: string, dir: string) {
  const state = { failNext: 0, calls: 0 };
  const backend: McpBackend = {
    info: { name: `lore-${name}`, version: '1' },
    listTools: () => TOOLS,
    callTool: async (tool, _args, call): Promise<CallToolResult> => {
      const seen: Seen = {
        upstream: name,
        tool,
        token: call.token,
        requestId: call.requestId,
        ...(call.ip ? { ip: call.ip } : {}),
        ...(call.traceparent ? { traceparent: call.traceparent } : {}),
      };
      return { content: [{ type: 'text', text: JSON.stringify(seen) }], structuredContent: { ...seen } };
    },
  };
  const config = testConfig(dir, { LORE_TRUSTED_PROXIES: '127.0.0.1' });
  const outer = new Hono();
  outer.post('/mcp', async (c, next) => {
    if (c.req.header('mcp-method') !== 'tools/call') return next();
    state.calls++;
    if (state.failNext > 0) {
      state.failNext--;
      return c.text('unavailable', 503);
    }
    return next();
  });
  outer.route('/', createHttpApp({ backend, config }));
  const http = await serveHttp(outer, config, 0);
  return { http, state, url: `${http.url}/mcp` };
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'relay-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('distributed mode relays tools/call to Lore services as it is', () => {
  const dir = tempDir();
  let one: Awaited<ReturnType<typeof upstream>>;
  let two: Awaited<ReturnType<typeof upstream>>;
  let outside: Awaited<ReturnType<typeof upstream>>;
  let agg: Distributed;
  let plain: Distributed;
  let http: HttpServerHandle;
  let plainHttp: HttpServerHandle;

  const start = async (relay: boolean) => {
    const config = testConfig(dir.path, {
      LORE_TRUSTED_PROXIES: '127.0.0.1',
      LORE_RELAY: String(relay),
    });
    const d = await startDistributed(config, {
      healthIntervalMs: 60_000,
      upstreams: [
        { name: 'one', url: one.url, kind: 'lore', forwardAuthorization: false, timeoutMs: 10_000 },
        { name: 'two', url: two.url, kind: 'lore', forwardAuthorization: false, timeoutMs: 10_000 },
        {
          name: 'outside',
          url: outside.url,
          kind: 'external',
          prefix: 'ext',
          forwardAuthorization: false,
          timeoutMs: 10_000,
        },
      ],
    });
    return { d, http: await serveHttp(d.app, config, 0) };
  };

  beforeAll(async () => {
    [one, two, outside] = await Promise.all([
      upstream('one', dir.path),
      upstream('two', dir.path),
      upstream('outside', dir.path),
    ]);
    ({ d: agg, http } = await start(true));
    ({ d: plain, http: plainHttp } = await start(false));
  }, 60_000);

  afterAll(async () => {
    for (const h of [http, plainHttp, one?.http, two?.http, outside?.http]) await h?.close();
    await agg?.close();
    await plain?.close();
    dir.cleanup();
  });

  const post = (base: string, tool: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': tool,
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: tool, arguments: {}, _meta: META },
      }),
    });

  it('passes the caller, its address, the request id and the trace on, and names itself as the server', async () => {
    const res = await post(http.url, 'whoami', {
      authorization: 'Bearer lore_sk_relay_caller',
      'x-request-id': 'req-relay-1',
      'x-forwarded-for': '198.51.100.7',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get(RELAYED_BY)).toBe('one');
    const body = (await res.json()) as { id: number; result: CallToolResult };
    expect(body.id).toBe(7);
    const seen = body.result.structuredContent as unknown as Seen;
    expect(seen).toMatchObject({
      upstream: 'one',
      tool: 'whoami',
      token: 'lore_sk_relay_caller',
      requestId: 'req-relay-1',
      ip: '198.51.100.7',
    });
    expect(seen.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(seen.traceparent).not.toContain('00f067aa0ba902b7');
    expect(body.result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'lore' });
  });

  it('renames only the tool: a prefixed name reaches its service under the service’s own name', async () => {
    const c = await connectClient(undefined, { url: `${http.url}/mcp`, key: 'lore_sk_relay_caller' });
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'two_whoami', 'ext_whoami']));
    const r = (await c.callTool({ name: 'two_whoami', arguments: {} })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({
      upstream: 'two',
      tool: 'whoami',
      token: 'lore_sk_relay_caller',
    });
    await c.close();
    const raw = await post(http.url, 'two_whoami');
    expect(raw.headers.get(RELAYED_BY)).toBe('two');
  });

  it('never relays to, nor passes the caller’s key to, an external upstream', async () => {
    const res = await post(http.url, 'ext_whoami', { authorization: 'Bearer lore_sk_relay_caller' });
    expect(res.status).toBe(200);
    expect(res.headers.get(RELAYED_BY)).toBeNull();
    const text = await res.text();
    expect(text).toContain('"upstream":"outside"');
    expect(text).not.toContain('lore_sk_relay_caller');
  });

  it('retries a read-only tool when its service fails, and never a tool that changes things', async () => {
    one.state.failNext = 1;
    const before = one.state.calls;
    const read = await post(http.url, 'whoami');
    expect(((await read.json()) as { result: CallToolResult }).result.isError).toBeFalsy();
    expect(one.state.calls - before).toBe(2);

    one.state.failNext = 1;
    const mid = one.state.calls;
    const write = await post(http.url, 'note');
    expect(write.headers.get(RELAYED_BY)).toBe('one');
    const result = ((await write.json()) as { result: CallToolResult }).result;
    expect(result.isError).toBe(true);
    expect(one.state.calls - mid).toBe(1);
    // A result on the 2026-07-28 wire like any other, which the SDK's client accepts as an error result.
    expect(result.resultType).toBe('complete');
    expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: agg.aggregator.info.name,
    });
    one.state.failNext = 1;
    const client = await connectClient(undefined, { url: `${http.url}/mcp` });
    const viaSdk = (await client.callTool({ name: 'note', arguments: {} })) as CallToolResult;
    expect(viaSdk.isError).toBe(true);
    await client.close();
    one.state.failNext = 0;
  });

  it('takes the full exchange for a tool whose results this process listens to, and only for it', async () => {
    const heard: string[] = [];
    const stop = agg.aggregator.onResult((name) => heard.push(name), ['note']);
    const note = await post(http.url, 'note');
    expect(note.headers.get(RELAYED_BY)).toBeNull();
    await note.text();
    expect(heard).toEqual(['note']);
    const who = await post(http.url, 'whoami');
    expect(who.headers.get(RELAYED_BY)).toBe('one');
    await who.text();
    stop();
    const again = await post(http.url, 'note');
    expect(again.headers.get(RELAYED_BY)).toBe('one');
    await again.text();
  });

  it('answers the same with the relay turned off (LORE_RELAY=false), through the full exchange', async () => {
    const res = await post(plainHttp.url, 'whoami', { authorization: 'Bearer lore_sk_relay_caller' });
    expect(res.headers.get(RELAYED_BY)).toBeNull();
    const text = await res.text();
    expect(text).toContain('"upstream":"one"');
    expect(text).toContain('lore_sk_relay_caller');
  });
});
