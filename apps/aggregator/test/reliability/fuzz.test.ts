/**
 * Fuzzing: every tool of every service receives at least 200 malformed inputs through a real MCP
 * client and the all-in-one aggregator. No crash, no 500, every input the schema rejects is a 400
 * naming the field; inputs that happen to be valid may succeed or meet a designed 4xx.
 */
import { request as httpRequest } from 'node:http';
import { fromZodError, type HttpServerHandle, type LoreService, serveHttp } from '@lore/kit';
import { APPS_HOST, appFetch, type Client, connectClient } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FuzzCase, fuzzCases, type JsonSchema } from './fuzz-inputs.js';
import {
  type Agent,
  CALLER_CODES,
  type Lore,
  ok,
  outcomeOf,
  prng,
  RELIABILITY_SERVICES,
  startLore,
} from './support.js';

/** Change the seed to explore; a failure names its seed, tool and case so it reproduces. */
const SEED = 0x10e5eed;
const CASES_PER_TOOL = 210;
const CONCURRENCY = 6;

const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);

const STACK_TRACE = /\n\s+at .+\.(?:ts|js|mjs):\d+:\d+/;
const PASSWD = /root:x?:0:0:/;

describe('fuzzing every tool through the aggregator', () => {
  let l: Lore;
  let peer: Agent;
  let base: Record<string, unknown>;
  let total = 0;
  const perTool = new Map<string, { cases: number; ok: number; ms: number; codes: Record<string, number> }>();
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    l = await startLore({ LORE_RATE_LIMITS: 'false' });
    // Real resources, so that mutations of a valid input reach the handlers' deep code.
    peer = await l.register('fuzz_peer', { bio: 'Peer of the fuzzers.' });
    await ok(peer.client, 'updateKnowledgeSources', {
      file_name: 'qubits.md',
      file_content:
        '# Qubits\n\nQuantum error correction keeps logical qubits stable on superconducting processors.',
    });
    const post = await ok<{ post: { id: string } }>(peer.client, 'den_post', {
      den: 'm/general',
      content: 'Hello from the fuzz peer.',
    });
    const project = await ok<{ project: { id: string } }>(peer.client, 'showcase_submit', {
      title: 'Fuzz target',
      description: 'A project for the fuzzers to vote on.',
      category: 'tool',
    });
    const prompts = await ok<{ prompts: Array<{ id: string }> }>(peer.client, 'prompt_list', {});
    base = {
      username: 'fuzz_peer',
      user_id: 'fuzz_peer',
      agent: 'fuzz_peer',
      to: 'fuzz_peer',
      with: 'fuzz_peer',
      peers: ['fuzz_peer'],
      den: 'm/general',
      before: post.data.post.id,
      project_id: project.data.project.id,
      prompt_id: prompts.data.prompts[0]?.id ?? 'none',
      query: 'quantum error correction',
      question: 'How does quantum error correction work?',
      purpose: 'Work together on error correction.',
      content: 'A plain, friendly message about qubits.',
      source: 'qubits.md',
      file_name: 'fuzz.md',
      file_content: '# Fuzz\n\nSome text about logical qubits.',
      sentence: 'Accept queries related to programming from any user',
      condition: 'Accept queries related to programming from any user',
      related_question: 'quantum',
      names: ['lore/README.md'],
      id: 'qry-0a1b2c3d4e',
      query_id: 'qry-0a1b2c3d4e',
    };
  }, 120_000);

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    const rows = [...perTool].map(
      ([t, s]) =>
        `  ${t.padEnd(30)} ${String(s.cases).padStart(4)} cases, ${String(s.ok).padStart(3)} ok, ${JSON.stringify(s.codes)}, ${s.ms} ms`,
    );
    console.info(
      `fuzz: ${total} cases over ${perTool.size} tools (seed ${SEED.toString(16)})\n${rows.join('\n')}`,
    );
    await l?.close();
  });

  /** Runs one case; returns a failure description, or undefined when the outcome is acceptable. */
  async function runCase(
    tool: LoreService['tools'][number],
    client: Client,
    c: FuzzCase,
  ): Promise<{ failure?: string; rotatedKey?: string; code?: number | 'ok' | 413 }> {
    // What the service parses: the JSON the client sends, where the MCP SDK drops `__proto__` keys.
    const wire = JSON.parse(JSON.stringify(c.args), (k, v) => (k === '__proto__' ? undefined : v)) as Record<
      string,
      unknown
    >;
    const bodyBytes = Buffer.byteLength(JSON.stringify(c.args));
    const oversize = bodyBytes > l.config.LORE_MAX_BODY_BYTES;
    const parsed = tool.input.safeParse(wire);
    const where = `${tool.name} [${c.kind}] args=${JSON.stringify(c.args).slice(0, 160)}`;
    let raw: Awaited<ReturnType<Client['callTool']>>;
    try {
      raw = await client.callTool({ name: tool.name, arguments: c.args });
    } catch (err) {
      const msg = (err as Error).message;
      if (oversize && /Request body too large/.test(msg)) return { code: 413 };
      return { failure: `${where}: the call threw: ${msg.slice(0, 300)}` };
    }
    if (oversize) return { failure: `${where}: a ${bodyBytes}-byte body was not refused with 413` };
    const o = outcomeOf(raw as never);
    const serialized = JSON.stringify(raw);
    if (STACK_TRACE.test(o.text) || STACK_TRACE.test(serialized))
      return { failure: `${where}: a stack trace reached the caller: ${o.text.slice(0, 200)}` };
    if (PASSWD.test(serialized)) return { failure: `${where}: /etc/passwd content reached the caller` };
    if (o.ok) {
      if (!parsed.success)
        return {
          failure: `${where}: the schema rejects this input (${parsed.error.issues[0]?.message}) but the call succeeded`,
        };
      const key = (raw.structuredContent as { apiKey?: string } | undefined)?.apiKey;
      return { code: 'ok', ...(tool.name === 'agent_rotate_key' && key ? { rotatedKey: key } : {}) };
    }
    if (typeof o.code !== 'number')
      return {
        failure: `${where}: an error result without _meta['lore/error'].code: ${serialized.slice(0, 200)}`,
      };
    if (typeof o.message !== 'string' || !o.message)
      return { failure: `${where}: an error without a message` };
    if (!parsed.success) {
      const expected = fromZodError(parsed.error, wire).data?.field;
      if (o.code !== 400)
        return {
          failure: `${where}: the schema rejects this input but the result is ${o.code}: ${o.text.slice(0, 200)}`,
        };
      if (typeof o.field !== 'string' || !o.field) return { failure: `${where}: a 400 without data.field` };
      if (typeof o.constraint !== 'string' || !o.constraint)
        return { failure: `${where}: a 400 without data.constraint` };
      if (o.field !== expected)
        return {
          failure: `${where}: the 400 names ${o.field}, the schema's first issue is at ${String(expected)}`,
        };
      return { code: 400 };
    }
    // A valid input: the handler may refuse it by design, never with a server error.
    if (!CALLER_CODES.has(o.code) || o.code === 401)
      return { failure: `${where}: a valid input answered ${o.code}: ${o.text.slice(0, 300)}` };
    if (o.code === 400 && (typeof o.field !== 'string' || !o.field))
      return { failure: `${where}: a handler's 400 without data.field: ${o.text.slice(0, 200)}` };
    return { code: o.code };
  }

  it.each(RELIABILITY_SERVICES.map((s) => s.name))(
    'gives every %s tool ≥ 200 malformed inputs: no crash, no 500, every rejection a 400 naming the field',
    async (serviceName) => {
      const service = l.lore.services.find((s) => s.name === serviceName)!;
      expect(service.tools.length).toBeGreaterThan(0);
      // The whole catalog, as an MCP Apps host lists it (a plain client is not shown the apps' own tools).
      const host = await connectClient(appFetch(l.lore.app), { capabilities: APPS_HOST });
      const catalog = new Set((await host.listTools()).tools.map((t) => t.name));
      await host.close();
      const failures: string[] = [];
      for (const tool of service.tools) {
        expect(catalog.has(tool.name), `${tool.name} is in the aggregator's catalog`).toBe(true);
        const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
        const cases = fuzzCases(schema, prng(SEED ^ hash(tool.name)), CASES_PER_TOOL, {
          base,
          hugeBytes: l.config.LORE_MAX_BODY_BYTES,
        });
        expect(cases.length).toBeGreaterThanOrEqual(200);
        // A fresh agent per tool, so side effects of inputs that happen to be valid stay with it; a
        // tool that rotates the caller's key gets one agent per worker, each following its new key.
        const own = tool.name === 'agent_rotate_key';
        const shared = own
          ? undefined
          : await l.register(`fz_${(hash(tool.name) >>> 0).toString(36).slice(0, 12)}`);
        const stats = { cases: 0, ok: 0, ms: 0, codes: {} as Record<string, number> };
        const t0 = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async (_, w) => {
            let client = shared?.client ?? (await l.register(`fz_rot_${w}`)).client;
            await client.listTools(); // the client then checks structured results against output schemas
            while (next < cases.length) {
              const c = cases[next++]!;
              const r = await runCase(tool, client, c);
              stats.cases++;
              if (r.code === 'ok') stats.ok++;
              else if (r.code !== undefined) stats.codes[r.code] = (stats.codes[r.code] ?? 0) + 1;
              if (r.failure) failures.push(r.failure);
              if (r.rotatedKey && own) {
                client = await l.client(r.rotatedKey);
                await client.listTools();
              }
            }
          }),
        );
        stats.ms = Math.round(performance.now() - t0);
        perTool.set(tool.name, stats);
        total += stats.cases;
      }
      expect(failures.slice(0, 15), `${failures.length} failing cases (seed ${SEED.toString(16)})`).toEqual(
        [],
      );
      // Still alive and sound: health, a plain call, no prototype pollution, no unhandled rejections.
      expect((await l.lore.app.request('/readyz')).status).toBe(200);
      expect(
        (await ok<{ agent: { username: string } }>(peer.client, 'agent_profile', { username: 'fuzz_peer' }))
          .data.agent.username,
      ).toBe('fuzz_peer');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(unhandled).toEqual([]);
    },
    600_000,
  );

  describe('oversized and malformed HTTP bodies', () => {
    let http: HttpServerHandle;
    beforeAll(async () => {
      http = await serveHttp(l.lore.app, l.config, 0);
    });
    afterAll(async () => {
      await http?.close();
    });

    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
    };

    it('refuses a body over LORE_MAX_BODY_BYTES with 413 before reading it (declared length)', async () => {
      const declared = 50 * 1024 * 1024;
      const r = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
        let sent = 0;
        const req = httpRequest(
          `${http.url}/mcp`,
          { method: 'POST', headers: { ...headers, 'content-length': String(declared) } },
          (res) => {
            let body = '';
            res.on('data', (d) => {
              body += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent }));
          },
        );
        req.on('error', (e) => (sent > 0 ? undefined : reject(e)));
        // Send only the first megabyte of the declared 50: a server that waited for the body would hang.
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let i = 0; i < 16; i++) {
          req.write(chunk);
          sent += chunk.length;
        }
      });
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(r.sent).toBeLessThan(declared);
    });

    it('refuses a streamed (chunked) body once it passes the limit, without reading it all', async () => {
      let pulled = 0;
      const limit = l.config.LORE_MAX_BODY_BYTES;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled > 64 * limit) return controller.close();
          const chunk = new Uint8Array(64 * 1024).fill(0x20);
          pulled += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const r = await fetch(`${http.url}/mcp`, {
        method: 'POST',
        headers,
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(r.status).toBe(413);
      await r.text();
      expect(pulled).toBeLessThan(16 * limit);
    });

    it('answers a body just under the limit as the tool would (a 400 naming the field), not as an outage', async () => {
      const limit = l.config.LORE_MAX_BODY_BYTES;
      const request = (query: string) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'searchKnowledge',
            arguments: { query },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        });
      const post = async (body: string) => {
        const r = await fetch(`${http.url}/mcp`, {
          method: 'POST',
          headers: {
            ...headers,
            authorization: `Bearer ${peer.key}`,
            'mcp-method': 'tools/call',
            'mcp-name': 'searchKnowledge',
          },
          body,
        });
        expect(r.status).toBe(200);
        return (
          (await r.json()) as {
            result: { isError?: boolean; _meta: { 'lore/error': Record<string, unknown> } };
          }
        ).result;
      };
      // Control: an over-long query in a small body is a 400 on `query`.
      expect((await post(request('x'.repeat(2000))))._meta['lore/error']).toMatchObject({
        code: 400,
        data: { field: 'query' },
      });
      // The same at one byte under the limit: the front door accepts it, so the answer must be the same.
      const body = request('x'.repeat(limit - 1 - Buffer.byteLength(request(''))));
      expect(Buffer.byteLength(body)).toBe(limit - 1);
      const r = await post(body);
      expect(r.isError).toBe(true);
      expect(r._meta['lore/error']).toMatchObject({ code: 400, data: { field: 'query' } });
    });

    it('answers malformed JSON-RPC with JSON-RPC errors, never a 5xx', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const bodies = [
        '',
        '{',
        'null',
        '42',
        '"tools/call"',
        '[]',
        '[{}]',
        '{}',
        '{"jsonrpc":"2.0"}',
        '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":null}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent_search","arguments":[1,2]}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent_search","arguments":"x"}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${'a'.repeat(100_000)}","arguments":{}}}`,
        '{"jsonrpc":"2.0","id":1,"method":"no/such/method"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"!!!"}}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"LTE"}}',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent_search","arguments":${deep}}}`,
        '\u0000\u0001\u0002',
        '\uFEFF{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      ];
      const seen: string[] = [];
      for (const body of bodies) {
        for (const h of [
          headers,
          { ...headers, 'content-type': 'text/plain' },
          { 'content-type': 'application/json' },
        ]) {
          const r = await fetch(`${http.url}/mcp`, { method: 'POST', headers: h, body });
          const text = await r.text();
          seen.push(`${r.status}`);
          expect(r.status, `${body.slice(0, 80)} → ${r.status} ${text.slice(0, 200)}`).toBeLessThan(500);
          expect(text).not.toMatch(STACK_TRACE);
          if (r.headers.get('content-type')?.includes('application/json') && text) {
            const json = JSON.parse(text) as { error?: { code: number }; result?: { isError?: boolean } };
            expect(json.error !== undefined || json.result !== undefined, text.slice(0, 200)).toBe(true);
          }
        }
      }
      expect(seen.length).toBe(bodies.length * 3);
      expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
    });
  });
});
