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

/** A Lore endpoint whose one tool waits until its call is aborted. */
async function slowUpstream(dir: string) {
  let started!: () => void;
  let aborted!: (v: boolean) => void;
  const state = {
    started: new Promise<void>((r) => (started = r)),
    aborted: new Promise<boolean>((r) => (aborted = r)),
  };
  const backend: McpBackend = {
    info: { name: 'lore-slow', version: '1' },
    listTools: () => [{ name: 'wait', inputSchema: { type: 'object' } }],
    callTool: (_tool, _args, call): Promise<CallToolResult> =>
      new Promise((resolve) => {
        started();
        call.signal.addEventListener('abort', () => {
          aborted(true);
          resolve({ content: [] });
        });
      }),
  };
  const config = testConfig(dir);
  const http = await serveHttp(createHttpApp({ backend, config }), config, 0);
  return { ...state, http, url: `${http.url}/mcp` };
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
  /** The same aggregator served without its lane: relayed by the endpoint, through Hono. */
  let honoHttp: HttpServerHandle;
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
    return { d, http: await serveHttp(d.app, config, 0, d.lane), config };
  };

  beforeAll(async () => {
    [one, two, outside] = await Promise.all([
      upstream('one', dir.path),
      upstream('two', dir.path),
      upstream('outside', dir.path),
    ]);
    let config: ReturnType<typeof testConfig>;
    ({ d: agg, http, config } = await start(true));
    expect(agg.lane).toBeDefined();
    honoHttp = await serveHttp(agg.app, config, 0);
    ({ d: plain, http: plainHttp } = await start(false));
    expect(plain.lane).toBeUndefined();
  }, 60_000);

  afterAll(async () => {
    for (const h of [http, honoHttp, plainHttp, one?.http, two?.http, outside?.http]) await h?.close();
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

  it.each([
    ['its lane', () => http],
    ['its endpoint', () => honoHttp],
  ])(
    'passes the caller, its address, the request id and the trace on, and names itself as the server (%s)',
    async (_, server) => {
      const res = await post(server().url, 'whoami', {
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
    },
  );

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

  it('hands the app a request whose body is not what its headers said, and answers as the endpoint does', async () => {
    const send = (base: string, body: string, name = 'whoami') =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
          'x-request-id': 'same',
        },
        body,
      });
    // Each hop has a span of its own: the trace contexts differ by their span ids only.
    const same = (text: string) => text.replace(/00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]/g, 'traceparent');
    const call = (name: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name, arguments: {}, _meta: META },
      });
    for (const body of [
      '{"jsonrpc":',
      call('note'),
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
    ]) {
      const [viaLane, viaEndpoint] = await Promise.all([send(http.url, body), send(honoHttp.url, body)]);
      expect(viaLane.status).toBe(viaEndpoint.status);
      expect(viaLane.headers.get(RELAYED_BY)).toBe(viaEndpoint.headers.get(RELAYED_BY));
      expect(same(await viaLane.text())).toBe(same(await viaEndpoint.text()));
    }
  });

  it('leaves to the app a request with a header given twice, and one from a Host it refuses', async () => {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'whoami',
    });
    headers.append('x-request-id', 'a');
    headers.append('X-Request-Id', 'b');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: META },
    });
    // fetch joins repeated headers into one, and sets Host itself; a raw request does neither.
    const { request } = await import('node:http');
    const send = (set: (req: import('node:http').ClientRequest) => void) =>
      new Promise<{ status: number; text: string; relayed: unknown }>((resolve, reject) => {
        const req = request(`${http.url}/mcp`, { method: 'POST' }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text, relayed: res.headers[RELAYED_BY] }),
          );
        });
        req.on('error', reject);
        for (const [k, v] of headers) if (k !== 'x-request-id') req.setHeader(k, v);
        set(req);
        req.end(body);
      });
    const twice = await send((req) => req.setHeader('x-request-id', ['a', 'b']));
    expect(twice.status).toBe(200);
    // Relayed by the endpoint all the same, with the request id as the web Headers read it.
    expect(twice.relayed).toBe('one');
    expect(twice.text).toContain('"requestId":"a, b"');
    const refused = await send((req) => req.setHeader('host', 'evil.example'));
    expect(refused.status).toBe(403);
    expect(refused.relayed).toBeUndefined();
  });

  it("aborts the service's call when the client goes away", async () => {
    const slow = await slowUpstream(dir.path);
    const config = testConfig(dir.path, { LORE_TRUSTED_PROXIES: '127.0.0.1' });
    const d = await startDistributed(config, {
      healthIntervalMs: 60_000,
      upstreams: [
        { name: 'slow', url: slow.url, kind: 'lore', forwardAuthorization: false, timeoutMs: 10_000 },
      ],
    });
    const served = await serveHttp(d.app, config, 0, d.lane);
    try {
      const client = new AbortController();
      const res = fetch(`${served.url}/mcp`, {
        method: 'POST',
        signal: client.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'wait',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait', arguments: {}, _meta: META },
        }),
      }).then(
        () => 'answered',
        () => 'aborted',
      );
      await slow.started;
      client.abort();
      expect(await res).toBe('aborted');
      expect(await slow.aborted).toBe(true);
    } finally {
      await served.close().catch(() => {});
      await d.close();
      await slow.http.close();
    }
  });
});
