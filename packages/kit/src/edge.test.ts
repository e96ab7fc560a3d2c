import { Agent, get as httpGet } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { clientAddress, jsonTooDeep, trustedProxies } from './edge.js';
import type { McpBackend } from './mcp.js';
import { type HttpServerHandle, KEEP_ALIVE_TIMEOUT_MS, serveHttp } from './serve.js';
import { createHttpApp } from './service.js';
import { connectClient, deeplyNestedJson, tempDir, testConfig } from './testing/index.js';

describe('client address', () => {
  const trusted = trustedProxies('10.0.0.0/8, ::1, 192.168.1.7');

  it('believes X-Forwarded-For only from a trusted proxy, read from the nearest hop', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
    expect(clientAddress('10.1.2.3', '1.2.3.4', trusted)).toBe('1.2.3.4');
    expect(clientAddress('::ffff:10.1.2.3', '6.6.6.6, 1.2.3.4, 10.9.9.9', trusted)).toBe('1.2.3.4');
    expect(clientAddress('::1', 'garbage', trusted)).toBe('::1');
    expect(clientAddress('::ffff:127.0.0.1', undefined, trusted)).toBe('127.0.0.1');
    expect(clientAddress(undefined, '1.2.3.4', trusted)).toBeUndefined();
  });

  it('refuses a malformed LORE_TRUSTED_PROXIES entry by name', () => {
    expect(() => trustedProxies('10.0.0.0/33')).toThrow(ConfigError);
    expect(() => trustedProxies('proxy.local')).toThrow(/LORE_TRUSTED_PROXIES: "proxy.local"/);
  });
});

describe('jsonTooDeep', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonTooDeep('{"a":[[1]]}', 3)).toBe(false);
    expect(jsonTooDeep('{"a":[[[1]]]}', 3)).toBe(true);
    expect(jsonTooDeep(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 3)).toBe(false);
  });

  it('agrees with a scan that steps through every character, escapes included', () => {
    // The scan before strings were skipped by searching for their closing quote.
    const stepping = (text: string, max: number) => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
          if (c === 92) i++;
          else if (c === 34) inString = false;
        } else if (c === 34) inString = true;
        else if (c === 123 || c === 91) {
          if (++depth > max) return true;
        } else if (c === 125 || c === 93) depth--;
      }
      return false;
    };
    const alphabet = ['"', '\\', '[', ']', '{', '}', 'a', ',', ':'];
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let n = 0; n < 5000; n++) {
      let text = '';
      for (let k = next() % 40; k > 0; k--) text += alphabet[next() % alphabet.length];
      for (const max of [0, 1, 2, 3])
        expect(jsonTooDeep(text, max), `${JSON.stringify(text)} at ${max}`).toBe(stepping(text, max));
    }
    const body = JSON.stringify({ t: 'say "[[[" and \\"{{{\\', n: [[['\\\\"']]] });
    expect(jsonTooDeep(body, 4)).toBe(false);
    expect(jsonTooDeep(body, 3)).toBe(true);
  });
});

/** A backend with one public tool that reports the address the call came from. */
const backend: McpBackend = {
  info: { name: 'edge-test', version: '1.0.0' },
  listTools: () => [{ name: 'whoami', inputSchema: { type: 'object' } }],
  callTool: async (_name, _args, call): Promise<CallToolResult> => ({
    content: [{ type: 'text', text: call.ip ?? 'unknown' }],
  }),
};

describe('the HTTP edge', () => {
  const dir = tempDir();
  let http: HttpServerHandle;

  beforeAll(async () => {
    const config = testConfig(dir.path, {
      LORE_TRUSTED_PROXIES: '127.0.0.1',
      LORE_MAX_JSON_DEPTH: '32',
      LORE_MAX_BODY_BYTES: '262144',
    });
    const app = createHttpApp({
      backend,
      config,
      legacySessions: { max: 50, maxPerAddress: 5 },
      verifyKey: async (key) => key === 'lore_sk_valid',
    });
    http = await serveHttp(app, config, 0);
  });
  afterAll(async () => {
    await http.close();
    dir.cleanup();
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });

  it('keeps an idle connection longer than clients keep theirs, and says so in Keep-Alive', async () => {
    // Node's 5 s default was barely over undici's 4 s: a client whose timer ran late on a busy
    // machine reused a socket the server was closing (ECONNRESET). Clients read this header.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ keepAlive?: string; reused: boolean }>((resolve, reject) => {
        const req = httpGet(`${http.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ keepAlive: res.headers['keep-alive']?.toString(), reused: req.reusedSocket }),
          );
        });
        req.on('error', reject);
      });
    try {
      const first = await get();
      expect(first.keepAlive).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000);
      expect(first.reused).toBe(false);
      expect((await get()).reused).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('refuses a deeply nested body with a 400 naming the limit, before parsing it', async () => {
    const res = await post(deeplyNestedJson(100_000));
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/deeper than 32 levels \(LORE_MAX_JSON_DEPTH\)/);
  });

  it('refuses a body over LORE_MAX_BODY_BYTES with a 413, whether its length is declared or chunked', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(300_000) },
    });
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.message).toBe('Request body too large');
    const chunked = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++)
            c.enqueue(new TextEncoder().encode(big.slice(i * 30_100, (i + 1) * 30_100)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('serves a chunked body under the limit, and answers a body that is not JSON as the SDK does', async () => {
    const list = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const res = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(list.slice(0, 40)));
          c.enqueue(new TextEncoder().encode(list.slice(40)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('whoami');
    const broken = await post('{"jsonrpc":', { 'mcp-protocol-version': '2026-07-28' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(-32700);
  });

  it('takes the client address from X-Forwarded-For when the peer is a trusted proxy', async () => {
    const client = await connectClient(undefined, {
      url: `${http.url}/mcp`,
      headers: { 'x-forwarded-for': '198.51.100.4' },
    });
    const r = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(r.content[0]).toMatchObject({ text: '198.51.100.4' });
    await client.close();
  });

  it('opens 2025-11-25 sessions only for valid keys; a flood of initializes evicts nobody', async () => {
    const kept = await connectClient(undefined, {
      url: `${http.url}/mcp`,
      era: 'legacy',
      key: 'lore_sk_valid',
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    const init = (headers: Record<string, string>) =>
      post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'flood', version: '1' },
          },
        }),
        headers,
      );
    // Twice the session cap (50) of unauthenticated or wrongly keyed initializes: no session for any.
    for (let i = 0; i < 100; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          init(j % 2 ? { authorization: 'Bearer lore_sk_wrong' } : {}).then(async (r) => {
            await r.body?.cancel();
            return r;
          }),
        ),
      );
      for (const r of batch) {
        expect(r.status).toBe(200);
        expect(r.headers.get('mcp-session-id')).toBeNull();
      }
    }
    // A valid key from one address holds at most 5 sessions: its own oldest make room.
    for (let i = 0; i < 12; i++) {
      const r = await init({ authorization: 'Bearer lore_sk_valid', 'x-forwarded-for': '203.0.113.66' });
      expect(r.headers.get('mcp-session-id')).toBeTruthy();
      await r.body?.cancel();
    }
    const { tools } = await kept.listTools();
    expect(tools.map((t) => t.name)).toEqual(['whoami']);
    await kept.close();
  }, 60_000);
});

describe('binding', () => {
  it('refuses a non-loopback address without LORE_ALLOWED_HOSTS, naming it', async () => {
    const dir = tempDir();
    const config = testConfig(dir.path, { LORE_HOST: '0.0.0.0' });
    const app = createHttpApp({ backend, config });
    await expect(serveHttp(app, config, 0)).rejects.toThrow(
      /LORE_ALLOWED_HOSTS: required when LORE_HOST \(0\.0\.0\.0\)/,
    );
    dir.cleanup();
  });
});
