import { statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { APPS_HOST, appFetch, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, ensureOwner, startAllInOne } from '../src/index.js';

const register = (username: string) => ({
  username,
  email: `${username}@example.com`,
  displayName: username,
});

describe('all-in-one aggregator', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;

  beforeAll(async () => {
    const config = testConfig(dir.path, { LORE_PORT: '0' });
    lore = await startAllInOne(config);
    http = await serveHttp(lore.app, config, 0);
  });
  afterAll(async () => {
    await http.close();
    await lore.close();
    dir.cleanup();
  });

  it('serves the union of the services as one catalog', async () => {
    // As an MCP Apps host lists it: the apps' own tools too (a plain client is not shown them).
    const client = await connectClient(appFetch(lore.app), { capabilities: APPS_HOST });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const s of lore.services) for (const t of s.tools) expect(names).toContain(t.name);
    expect(lore.aggregator.owner('agent_register')).toBe('users');
  });

  it('creates the owner agent once, with its key in a mode-600 file', async () => {
    const first = (await ensureOwner(lore.aggregator, dir.path))!;
    const second = await ensureOwner(lore.aggregator, dir.path);
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false, key: first.key });
    const file = join(dir.path, 'owner.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const c = await connectClient(appFetch(lore.app), { key: first.key });
    expect(
      (await ok<{ agent: { username: string } }>(c, 'agent_profile', { username: 'owner' })).data.agent
        .username,
    ).toBe('owner');
  });

  it('passes the caller identity through to the service (401 without, 200 with)', async () => {
    const anon = await connectClient(appFetch(lore.app));
    expect((await call(anon, 'agent_search', {})).error?.code).toBe(401);
    const reg = await ok<{ apiKey: string }>(anon, 'agent_register', register('passthrough'));
    const me = await connectClient(appFetch(lore.app), { key: reg.data.apiKey });
    const r = await ok<{ agent: { username: string }; email?: string }>(me, 'agent_profile', {
      username: 'passthrough',
    });
    expect(r.data.email).toBe('passthrough@example.com');
  });

  it('keeps concurrent callers apart (no crossed identities)', async () => {
    const anon = await connectClient(appFetch(lore.app));
    const agents = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const r = await ok<{ apiKey: string }>(anon, 'agent_register', register(`crowd_${i}`));
        return {
          handle: `crowd_${i}`,
          client: await connectClient(appFetch(lore.app), { key: r.data.apiKey }),
        };
      }),
    );
    const results = await Promise.all(
      agents.flatMap((a) =>
        Array.from({ length: 5 }, () =>
          ok<{ email?: string }>(a.client, 'agent_profile', { username: a.handle }).then((r) => [
            a.handle,
            r.data.email,
          ]),
        ),
      ),
    );
    for (const [handle, email] of results) expect(email).toBe(`${handle}@example.com`);
  });

  it('answers an SDK v1 client (2025-11-25) over HTTP', async () => {
    const client = new V1Client({ name: 'v1-client', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(`${http.url}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('agent_register');
    const r = await client.callTool({ name: 'agent_register', arguments: register('v1_agent') });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { apiKey: string }).apiKey).toMatch(/^lore_sk_/);
    await client.close();
  });

  it('answers an SDK v2 client (2026-07-28) over HTTP', async () => {
    const client = await connectClient(undefined, { url: `${http.url}/mcp` });
    expect(client.getNegotiatedProtocolVersion?.()).toBe('2026-07-28');
    const r = await ok<{ apiKey: string }>(client, 'agent_register', register('v2_agent'));
    expect(r.data.apiKey).toMatch(/^lore_sk_/);
  });

  it('refuses a foreign Host header and Origin (DNS rebinding)', async () => {
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        const req = httpRequest(
          `${http.url}/mcp`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    expect(await post({ host: 'evil.example.com' })).toBe(403);
    expect(await post({ origin: 'http://evil.example.com' })).toBe(403);
  });

  it('reports health, readiness and metrics', async () => {
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${http.url}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await (await fetch(`${http.url}/metrics`)).text();
    expect(metrics).toMatch(/lore_tool_calls_total\{service="users",tool="agent_register",code="200"\} \d+/);
  });
});
