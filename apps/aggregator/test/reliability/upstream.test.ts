/**
 * Upstream failure: the aggregator in distributed mode keeps serving its healthy upstreams while
 * one refuses connections, one hangs (the call ends at the upstream's timeoutMs with a 503
 * result, never a hang), and one answers garbage (invalid JSON, the wrong content type, HTTP 500,
 * a reset connection, an event stream that never carries the answer).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { type Client, connectClient, freePort, tempDir, testConfig } from '@lore/kit/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Distributed, startDistributed } from '../../src/index.js';
import { FIXTURE, type Spawned, spawnTs } from '../helpers.js';
import { outcomeOf } from './support.js';

type Mode = 'proxy' | 'badjson' | 'html' | 'http500' | 'reset' | 'empty' | 'sse-garbage' | 'hang';

/** An upstream that proxies to a real MCP server until told to answer garbage of one kind. */
async function garbageUpstream(target: string, mode: Mode = 'proxy') {
  const state = { mode, hits: 0 };
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.hits++;
    const body: Buffer[] = [];
    req.on('data', (d) => body.push(d));
    req.on('end', () => {
      switch (state.mode) {
        case 'proxy': {
          const url = new URL(req.url ?? '/', target);
          const up = httpRequest(
            url,
            { method: req.method, headers: { ...req.headers, host: url.host } },
            (r) => {
              res.writeHead(r.statusCode ?? 502, r.headers);
              r.pipe(res);
            },
          );
          up.on('error', () => res.destroy());
          up.end(Buffer.concat(body));
          return;
        }
        case 'badjson':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"te');
          return;
        case 'html':
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><body>Welcome to nginx!</body></html>');
          return;
        case 'http500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'empty':
          res.writeHead(200, { 'content-type': 'application/json' }).end();
          return;
        case 'sse-garbage':
          // An event stream that never carries the answer: only a timeout ends the wait.
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            'data: this is not json\n\nevent: message\ndata: {"jsonrpc":"2.0","id":"not-yours","result":{}}\n\n',
          );
          open.add(res);
          return;
        case 'hang':
          open.add(res);
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    state,
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const HUNG_TIMEOUT_MS = 3000;
const JUNK_TIMEOUT_MS = 2000;
const HEALTH_MS = 300;

describe('aggregator in distributed mode with failing upstreams', () => {
  const dir = tempDir();
  let alpha: Spawned;
  let slow: Spawned;
  let junkTarget: Spawned;
  let junk: Awaited<ReturnType<typeof garbageUpstream>>;
  let trash: Awaited<ReturnType<typeof garbageUpstream>>;
  let agg: Distributed;
  let http: HttpServerHandle;
  let client: Client;
  let startMs = 0;
  const faults: string[] = [];
  const timings: string[] = [];

  const callTimed = async (name: string, args: Record<string, unknown> = {}) => {
    const t0 = performance.now();
    const raw = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { o: outcomeOf(raw), ms: performance.now() - t0 };
  };
  const alphaAnswers = async () => {
    const r = await callTimed('echo', { text: 'ping' });
    expect(r.o.ok, r.o.text).toBe(true);
    expect(r.o.text).toBe('alpha: ping');
    return r.ms;
  };
  const names = async () => (await client.listTools()).tools.map((t) => t.name);

  beforeAll(async () => {
    [alpha, slow, junkTarget] = await Promise.all([
      spawnTs(FIXTURE, ['alpha'], {}),
      spawnTs(FIXTURE, ['slow'], {}),
      spawnTs(FIXTURE, ['junk'], {}),
    ]);
    junk = await garbageUpstream(junkTarget.url);
    trash = await garbageUpstream(junkTarget.url, 'badjson');
    const refused = await freePort(); // nothing listens there
    const external = { kind: 'external' as const, forwardAuthorization: false };
    const t0 = performance.now();
    agg = await startDistributed(testConfig(dir.path), {
      healthIntervalMs: HEALTH_MS,
      upstreams: [
        { name: 'alpha', url: alpha.url, ...external, timeoutMs: 20_000 },
        { name: 'slow', url: slow.url, prefix: 'slow', ...external, timeoutMs: HUNG_TIMEOUT_MS },
        {
          name: 'down',
          url: `http://127.0.0.1:${refused}/mcp`,
          prefix: 'down',
          ...external,
          timeoutMs: JUNK_TIMEOUT_MS,
        },
        { name: 'junk', url: junk.url, prefix: 'junk', ...external, timeoutMs: JUNK_TIMEOUT_MS },
        { name: 'trash', url: trash.url, prefix: 'trash', ...external, timeoutMs: JUNK_TIMEOUT_MS },
      ],
    });
    startMs = performance.now() - t0;
    http = await serveHttp(agg.app, testConfig(dir.path), 0);
    client = await connectClient(undefined, { url: `${http.url}/mcp` });
  }, 60_000);

  afterAll(async () => {
    console.info(
      `upstream faults injected (${faults.length}):\n${[...faults, ...timings].map((f) => `  ${f}`).join('\n')}`,
    );
    await http?.close();
    await agg?.close();
    await junk?.close();
    await trash?.close();
    await Promise.all([alpha?.kill(), slow?.kill(), junkTarget?.kill()]);
    dir.cleanup();
  });

  it('starts with one upstream refusing connections and one answering garbage, and serves the rest', async () => {
    faults.push(`connection refused at start (down): started in ${Math.round(startMs)} ms`);
    faults.push('invalid JSON from the start (trash)');
    expect(startMs).toBeLessThan(15_000);
    const tools = await names();
    expect(tools).toEqual(expect.arrayContaining(['echo', 'slow_echo', 'junk_echo']));
    expect(tools.some((t) => t.startsWith('down_') || t.startsWith('trash_'))).toBe(false);
    await alphaAnswers();
    const ready = await fetch(`${http.url}/readyz`);
    expect(ready.status).toBe(200);
    const catalog = (await (await fetch(`${http.url}/catalog`)).json()) as {
      upstreams: Array<{ name: string; state: string }>;
    };
    expect(Object.fromEntries(catalog.upstreams.map((u) => [u.name, u.state]))).toMatchObject({
      alpha: 'up',
      down: 'down',
      trash: 'down',
    });
    // The health loop keeps knocking on the dead ones without disturbing the live ones.
    await new Promise((r) => setTimeout(r, 4 * HEALTH_MS));
    await alphaAnswers();
  });

  it.each(['slow_never_answers', 'slow_never_answers_read'])(
    'ends a call to %s at the upstream’s timeout with a 503 result while the others keep answering',
    async (tool) => {
      faults.push(`hung tool ${tool} (timeoutMs ${HUNG_TIMEOUT_MS})`);
      const hung = callTimed(tool);
      let hungDone = false;
      void hung.finally(() => {
        hungDone = true;
      });
      // Meanwhile: the healthy upstream, and even the hung upstream's other tools, answer.
      for (let i = 0; i < 3; i++) await alphaAnswers();
      const echo = await callTimed('slow_echo', { text: 'still here' });
      expect(echo.o.text).toBe('slow: still here');
      expect(hungDone, 'the other calls were answered while the hung one was still waiting').toBe(false);
      const r = await hung;
      expect(r.o.ok).toBe(false);
      expect(r.o.code).toBe(503);
      expect(
        (r.o.raw._meta as { 'lore/error': { data: { retryAfterSeconds: number } } })['lore/error'].data
          .retryAfterSeconds,
      ).toBeGreaterThan(0);
      expect(r.ms).toBeGreaterThanOrEqual(HUNG_TIMEOUT_MS - 50);
      // A call that is not read-only gets one attempt; a read-only one is retried, each attempt
      // bounded by what is left of the aggregator's retry deadline (10 s), so it ends by then.
      const bound = tool.endsWith('_read') ? 10_000 : 2 * HUNG_TIMEOUT_MS;
      timings.push(`${tool}: 503 after ${Math.round(r.ms)} ms (timeoutMs ${HUNG_TIMEOUT_MS})`);
      expect(r.ms).toBeLessThan(bound + 2000);
      // A hung call does not take the upstream out of the catalog: its health checks still pass.
      expect(await names()).toContain('slow_echo');
    },
  );

  const garbage = async (mode: Mode) => {
    faults.push(`garbage upstream: ${mode}`);
    junk.state.mode = 'proxy';
    await expect.poll(async () => (await names()).includes('junk_echo'), { timeout: 10_000 }).toBe(true);
    expect((await callTimed('junk_echo', { text: 'before' })).o.text).toBe('junk: before');
    junk.state.mode = mode;
    const r = await callTimed('junk_echo', { text: 'during' });
    timings.push(`${mode}: 503 after ${Math.round(r.ms)} ms`);
    expect(r.o.ok, r.o.text).toBe(false);
    expect(r.o.code, r.o.text).toBe(503);
    // Read-only echo may be retried (3 attempts within 10 s); each attempt ends at the timeout at worst.
    expect(r.ms).toBeLessThan(10_000 + JUNK_TIMEOUT_MS + 3000);
    await alphaAnswers();
    junk.state.mode = 'proxy';
    await expect
      .poll(async () => (await callTimed('junk_echo', { text: 'after' })).o.text, { timeout: 10_000 })
      .toBe('junk: after');
  };

  it.each(['badjson', 'html', 'http500', 'reset', 'empty'] as const)(
    'turns a %s answer into a 503 result, never an exception, and keeps serving the others',
    garbage,
    30_000,
  );

  it('drops a garbage-answering upstream from the catalog, answers its tools with a quick 503, and restores it', async () => {
    faults.push('garbage upstream held down until dropped, then healed');
    junk.state.mode = 'http500';
    await expect.poll(async () => (await names()).includes('junk_echo'), { timeout: 10_000 }).toBe(false);
    const parked = await callTimed('junk_echo', { text: 'x' });
    expect(parked.o.code).toBe(503);
    expect(parked.ms).toBeLessThan(2000);
    await alphaAnswers();
    expect((await fetch(`${http.url}/readyz`)).status).toBe(200);
    junk.state.mode = 'proxy';
    await expect.poll(async () => (await names()).includes('junk_echo'), { timeout: 10_000 }).toBe(true);
    expect((await callTimed('junk_echo', { text: 'healed' })).o.text).toBe('junk: healed');
  }, 30_000);

  // Hanging answers come last: until they time out, they hold the health check that met them.
  it.each(['sse-garbage', 'hang'] as const)(
    'turns a %s answer into a 503 result at the timeout, never a hang, and keeps serving the others',
    garbage,
    30_000,
  );

  it('keeps checking the other upstreams while one of them hangs', async () => {
    faults.push('an upstream hangs while another one dies');
    const hits = junk.state.hits;
    junk.state.mode = 'hang';
    // A health check of the hung upstream has reached it and is stuck there.
    await expect.poll(() => junk.state.hits, { timeout: 10_000 }).toBeGreaterThan(hits);
    await slow.kill();
    // Three failed checks at HEALTH_MS each take the dead upstream out; allow generous slack.
    await expect
      .poll(async () => (await names()).includes('slow_echo'), { timeout: 8_000, interval: 200 })
      .toBe(false);
    await alphaAnswers();
    junk.state.mode = 'proxy';
  }, 30_000);
});
