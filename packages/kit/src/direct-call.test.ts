import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from './http-app.js';
import type { CallInfo, McpBackend } from './mcp.js';
import { connectClient, tempDir, testConfig } from './testing/index.js';

/** What each tool of the backend below answers; `thrown` tools throw instead. */
const answers: Record<string, () => CallToolResult> = {
  plain: () => ({ content: [{ type: 'text', text: 'hello' }], structuredContent: { n: 1 } }),
  refused: () => ({
    content: [{ type: 'text', text: 'Error 404: no such agent' }],
    isError: true,
    _meta: { 'lore/error': { code: 404, message: 'no such agent' } },
  }),
  named: () => ({
    content: [],
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'someone-else', version: '9' } },
  }),
  contentless: () => ({ structuredContent: { ok: true } }) as unknown as CallToolResult,
  unicode: () => ({ content: [{ type: 'text', text: 'naïve — “quotes” \u2028 ✓ 😀' }] }),
};
const thrown: Record<string, () => Error> = {
  missing: () =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown tool: missing', { tool: 'missing' }),
  broken: () => new Error('the database went away'),
  gone: () => new ProtocolError(ProtocolErrorCode.ResourceNotFound, 'Resource not found', { uri: 'x' }),
  coded: () => Object.assign(new Error('odd'), { code: 1.5 }),
};

/** Records, per call, whether it came through the direct exchange (no notifier, no SDK context). */
function backend(seen: { name: string; direct: boolean; call: CallInfo }[]): McpBackend {
  return {
    info: { name: 'direct-test', version: '1.2.3', title: 'Direct test' },
    listTools: () =>
      [...Object.keys(answers), ...Object.keys(thrown)].map((name) => ({
        name,
        inputSchema: { type: 'object' as const },
      })),
    async callTool(name, _args, call) {
      seen.push({ name, direct: call.notify === undefined, call });
      const fail = thrown[name];
      if (fail) throw fail();
      return answers[name]!();
    },
  };
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function request(
  name: string,
  over: { params?: object; meta?: object; headers?: Record<string, string>; message?: object } = {},
) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: 'Bearer lore_sk_test',
      ...over.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: { q: 'x' }, _meta: { ...ENVELOPE, ...over.meta }, ...over.params },
      ...over.message,
    }),
  };
}

describe('the direct exchange', () => {
  const dir = tempDir();
  const seenDirect: { name: string; direct: boolean; call: CallInfo }[] = [];
  const seenSdk: typeof seenDirect = [];
  const config = testConfig(dir.path);
  const direct = createHttpApp({ backend: backend(seenDirect), config, legacySessions: {} });
  const sdk = createHttpApp({ backend: backend(seenSdk), config, legacySessions: {}, directCalls: false });

  afterAll(() => dir.cleanup());

  /** The same request to both apps: status, content type and body, parsed when JSON. */
  async function both(req: { headers: Record<string, string>; body: string }) {
    const send = async (app: typeof direct) => {
      const res = await app.request('/mcp', { method: 'POST', headers: req.headers, body: req.body });
      const type = res.headers.get('content-type') ?? '';
      const text = await res.text();
      return {
        status: res.status,
        type: type.split(';')[0],
        body: type.includes('json') ? JSON.parse(text) : text,
      };
    };
    return { direct: await send(direct), sdk: await send(sdk) };
  }

  beforeAll(() => {
    seenDirect.length = 0;
    seenSdk.length = 0;
  });

  it('answers every kind of result and error exactly as the SDK does, without the SDK', async () => {
    for (const name of [...Object.keys(answers), ...Object.keys(thrown)]) {
      const before = seenDirect.length;
      const { direct: d, sdk: s } = await both(request(name));
      expect(d, name).toEqual(s);
      expect(d.status, name).toBe(200);
      expect(
        seenDirect.slice(before).map((x) => x.direct),
        name,
      ).toEqual([true]);
    }
    // A string id is answered under the same id.
    const before = seenDirect.length;
    const { direct: d, sdk: s } = await both(request('plain', { message: { id: 'req-abc' } }));
    expect(d).toEqual(s);
    expect((d.body as { id: unknown }).id).toBe('req-abc');
    expect(seenDirect.slice(before).map((x) => x.direct)).toEqual([true]);
    expect(seenSdk.every((x) => !x.direct)).toBe(true);
  });

  it('marks an error result in a header, with its Lore code, and nothing else', async () => {
    const send = (name: string) => {
      const r = request(name);
      return direct.request('/mcp', { method: 'POST', headers: r.headers, body: r.body });
    };
    expect((await send('refused')).headers.get('x-lore-tool-error')).toBe('404');
    expect((await send('plain')).headers.get('x-lore-tool-error')).toBeNull();
    expect((await send('broken')).headers.get('x-lore-tool-error')).toBeNull();
  });

  it('hands the tool the same call as the SDK path: key, request id, trace, envelope, era', async () => {
    const headers = {
      'x-request-id': 'req-42',
      traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01',
    };
    await both(request('plain', { headers, meta: { 'example.com/trace': 'abc' } }));
    const d = seenDirect.at(-1)!.call;
    const s = seenSdk.at(-1)!.call;
    for (const key of [
      'token',
      'era',
      'requestId',
      'traceparent',
      'meta',
      'clientCapabilities',
      'sampling',
      'elicitation',
    ] as const)
      expect(d[key], key).toEqual(s[key]);
    expect(d.token).toBe('lore_sk_test');
    expect(d.requestId).toBe('req-42');
    expect(d.meta).toEqual({ 'example.com/trace': 'abc' });
  });

  it('leaves to the SDK every request that may need the exchange or that it would refuse', async () => {
    const cases: [string, ReturnType<typeof request>][] = [
      ['progress token', request('plain', { meta: { progressToken: 'p1' } })],
      ['log level', request('plain', { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } })],
      [
        'sampling client',
        request('plain', { meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } }),
      ],
      [
        'elicitation client',
        request('plain', { meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } }),
      ],
      ['extra parameter', request('plain', { params: { task: { ttl: 1000 } } })],
      ['arguments not an object', request('plain', { params: { arguments: [1, 2] } })],
      ['no Mcp-Name', request('plain', { headers: { 'mcp-name': '' } })],
      ['Mcp-Name names another tool', request('plain', { headers: { 'mcp-name': 'refused' } })],
      ['Base64 Mcp-Name', request('plain', { headers: { 'mcp-name': '=?base64?cGxhaW4=?=' } })],
      ['Mcp-Method names another method', request('plain', { headers: { 'mcp-method': 'tools/list' } })],
      ['malformed envelope', request('plain', { meta: { 'io.modelcontextprotocol/clientInfo': 'me' } })],
      [
        'missing capabilities',
        request('plain', { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } }),
      ],
      ['older revision header', request('plain', { headers: { 'mcp-protocol-version': '2025-11-25' } })],
      ['not JSON content', request('plain', { headers: { 'content-type': 'text/plain' } })],
      ['a fractional id', request('plain', { message: { id: 1.5 } })],
      ['a null id', request('plain', { message: { id: null } })],
      ['an object id', request('plain', { message: { id: { n: 1 } } })],
      ['another JSON-RPC version', request('plain', { message: { jsonrpc: '1.0' } })],
      ['a member beyond the message', request('plain', { message: { extra: true } })],
      [
        'a __proto__ key in the arguments',
        {
          ...request('plain'),
          body: request('plain').body.replace('"arguments":{', '"arguments":{"__proto__":{"polluted":true},'),
        },
      ],
      [
        'a __proto__ key deep in _meta, spelled with an escape',
        {
          ...request('plain'),
          body: request('plain').body.replace('"_meta":{', '"_meta":{"x":[{"\\u005f_proto__":1}],'),
        },
      ],
    ];
    for (const [what, req] of cases) {
      const before = seenDirect.length;
      const { direct: d, sdk: s } = await both(req);
      expect(d, what).toEqual(s);
      expect(
        seenDirect.slice(before).every((x) => !x.direct),
        what,
      ).toBe(true);
    }
  });

  it('serves the SDK v2 client through the direct path, results and errors alike', async () => {
    const before = seenDirect.length;
    const client = await connectClient(async (url, init) => direct.request(String(url), init), {
      key: 'lore_sk_test',
    });
    const r = (await client.callTool({ name: 'plain', arguments: {} })) as CallToolResult;
    expect(r.structuredContent).toEqual({ n: 1 });
    const refused = (await client.callTool({ name: 'refused', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    await expect(client.callTool({ name: 'missing', arguments: {} })).rejects.toThrow(
      /Unknown tool: missing/,
    );
    await client.close();
    expect(seenDirect.slice(before).map((x) => [x.name, x.direct])).toEqual([
      ['plain', true],
      ['refused', true],
      ['missing', true],
    ]);
  });
});
