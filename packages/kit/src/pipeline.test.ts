import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { trustedProxies } from './edge.js';
import { callerOf, hostCheck, readCallBody } from './pipeline.js';

const limits = { maxBody: 64, maxDepth: 3 };
const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request('http://localhost/mcp', {
    method: 'POST',
    headers,
    body,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);
const stream = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(text));
      c.close();
    },
  });

describe('step 1: Host and Origin', () => {
  it('accepts local names on loopback and refuses any other Host or Origin', () => {
    const check = hostCheck({ LORE_HOST: '127.0.0.1', LORE_ALLOWED_HOSTS: undefined });
    expect(check.passes('localhost:3000', undefined)).toBe(true);
    expect(check.passes('127.0.0.1:3000', 'http://localhost:3000')).toBe(true);
    expect(check.passes('evil.example:3000', undefined)).toBe(false);
    expect(check.passes('localhost:3000', 'http://evil.example')).toBe(false);
    expect(check.passes(undefined, undefined)).toBe(false);
  });

  it('refuses to bind wide open without LORE_ALLOWED_HOSTS, naming the variable', () => {
    expect(() => hostCheck({ LORE_HOST: '0.0.0.0', LORE_ALLOWED_HOSTS: undefined })).toThrow(ConfigError);
    expect(() => hostCheck({ LORE_HOST: '0.0.0.0', LORE_ALLOWED_HOSTS: undefined })).toThrow(
      /LORE_ALLOWED_HOSTS/,
    );
    const open = hostCheck({ LORE_HOST: '0.0.0.0', LORE_ALLOWED_HOSTS: '*' });
    expect(open.checked).toBe(false);
    expect(open.passes('anything.example', 'http://elsewhere.example')).toBe(true);
  });
});

describe('step 2: the body limit', () => {
  it('refuses a declared length over the limit (413) before reading it', async () => {
    const read = await readCallBody(post('x'.repeat(65), { 'content-length': '65' }), limits);
    expect(read).toEqual({ refused: 413, message: 'Request body too large' });
  });

  it('refuses a chunked body once it passes the limit (413)', async () => {
    const read = await readCallBody(post(stream(`{"a":"${'x'.repeat(80)}"}`)), limits);
    expect(read).toMatchObject({ refused: 413 });
  });

  it('refuses a body nested deeper than the limit (400), naming LORE_MAX_JSON_DEPTH', async () => {
    const read = await readCallBody(post('[[[[1]]]]'), limits);
    expect(read).toMatchObject({ refused: 400 });
    expect((read as { message: string }).message).toMatch(/deeper than 3 levels \(LORE_MAX_JSON_DEPTH\)/);
  });

  it('parses JSON once, and hands on a body that is not JSON untouched', async () => {
    const json = await readCallBody(post('{"jsonrpc":"2.0"}'), limits);
    expect(json).toMatchObject({ parsedBody: { jsonrpc: '2.0' }, text: '{"jsonrpc":"2.0"}' });
    const notJson = await readCallBody(post('{nope'), limits);
    expect('parsedBody' in notJson).toBe(false);
    expect(await (notJson as { request: Request }).request.text()).toBe('{nope');
  });
});

describe('step 3: the caller', () => {
  const proxies = trustedProxies('10.0.0.1');
  const headers = (h: Record<string, string>) => (name: string) => h[name];

  it('keeps the client’s request id, or makes one', () => {
    expect(callerOf(headers({ 'x-request-id': 'r-1' }), '127.0.0.1', proxies).extra.requestId).toBe('r-1');
    const made = callerOf(headers({}), '127.0.0.1', proxies).extra.requestId;
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(callerOf(headers({}), '127.0.0.1', proxies).extra.requestId).not.toBe(made);
  });

  it('reads the bearer key and the trace context', () => {
    const c = callerOf(
      headers({ authorization: 'Bearer lore_sk_abc', traceparent: '00-aa-bb-01' }),
      '127.0.0.1',
      proxies,
    );
    expect(c.token).toBe('lore_sk_abc');
    expect(c.extra.traceparent).toBe('00-aa-bb-01');
    expect(callerOf(headers({ authorization: 'Basic x' }), '127.0.0.1', proxies).token).toBe('');
  });

  it('believes X-Forwarded-For from a trusted proxy only', () => {
    const h = headers({ 'x-forwarded-for': '203.0.113.7' });
    expect(callerOf(h, '10.0.0.1', proxies).extra.ip).toBe('203.0.113.7');
    expect(callerOf(h, '192.0.2.9', proxies).extra.ip).toBe('192.0.2.9');
  });
});
