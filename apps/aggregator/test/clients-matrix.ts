import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type HttpServerHandle, limiter, serveHttp } from '@lore/kit';
import { appFetch, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { type AllInOne, ensureOwner, startAllInOne } from '../src/index.js';
import { ROOT } from './helpers.js';

/**
 * The client matrix of issue 13, shared by test/clients.test.ts (the SDK clients, `pnpm test`) and
 * test/clients-inspector.test.ts (the Inspector CLI, `pnpm test:slow`): each client over HTTP and
 * over stdio (spawned as the README says), listing, one success and one call per error code.
 */
const run = promisify(execFile);
const INSPECTOR = join(
  import.meta.dirname,
  '../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js',
);

/** The README's stdio command, exactly: `pnpm --dir /path/to/lore lore start --stdio`. */
export const STDIO = { command: 'pnpm', args: ['--dir', ROOT, 'lore', 'start', '--stdio'] };

export type Case = 'list' | 'success' | 400 | 401 | 403 | 404 | 409 | 429;
export type Transport = 'http' | 'stdio';
export type ClientName = 'SDK v2 (2026-07-28)' | 'SDK v1 (2025-11-25)' | 'Inspector CLI 0.15';

/** What a client shows for one call: the text of the result, or the message it threw. */
export interface Shown {
  isError: boolean;
  text: string;
}

/** One client session, whatever the client: list the tools, call one. */
export interface Session {
  list(): Promise<string[]>;
  call(name: string, args: Record<string, string>): Promise<Shown>;
  close(): Promise<void>;
}

const textOf = (r: { content?: unknown; isError?: unknown }): Shown => ({
  isError: !!r.isError,
  text: ((r.content ?? []) as Array<{ type: string; text?: string }>)
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n'),
});

/** A thrown error is what the user sees instead of the result (the bug this matrix guards against). */
const shown = async (p: Promise<{ content?: unknown; isError?: unknown }>): Promise<Shown> => {
  try {
    return textOf(await p);
  } catch (err) {
    return { isError: true, text: `threw: ${(err as Error).message}` };
  }
};

function sdkSession(client: V1Client | V2Client): Session {
  return {
    async list() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    call: (name, args) =>
      shown(client.callTool({ name, arguments: args }) as Promise<{ content?: unknown; isError?: unknown }>),
    close: () => client.close(),
  };
}

const stdioEnv = (dataDir: string, key: string) => ({
  LORE_DATA_DIR: dataDir,
  LORE_API_KEY: key,
  LORE_LOG_LEVEL: 'warn',
  NATS_URL: '',
  PATH: process.env.PATH ?? '',
});

async function v2(transport: Transport, target: { url: string; key?: string; dataDir: string }) {
  const client = new V2Client(
    { name: 'matrix-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    transport === 'http'
      ? await import('@modelcontextprotocol/client').then(
          (m) =>
            new m.StreamableHTTPClientTransport(new URL(target.url), {
              requestInit: { headers: target.key ? { Authorization: `Bearer ${target.key}` } : {} },
            }),
        )
      : new V2Stdio({ ...STDIO, env: stdioEnv(target.dataDir, target.key ?? ''), stderr: 'ignore' }),
  );
  return sdkSession(client);
}

async function v1(transport: Transport, target: { url: string; key?: string; dataDir: string }) {
  const client = new V1Client({ name: 'matrix-v1', version: '1.0.0' });
  await client.connect(
    transport === 'http'
      ? new V1Http(new URL(target.url), {
          requestInit: { headers: target.key ? { Authorization: `Bearer ${target.key}` } : {} },
        })
      : new V1Stdio({ ...STDIO, env: stdioEnv(target.dataDir, target.key ?? ''), stderr: 'ignore' }),
  );
  return sdkSession(client);
}

/**
 * The Inspector CLI runs once per operation (it lists the tools before every call). Over HTTP it
 * sends no headers, so it can only reach what works without a key; over stdio it starts Lore
 * each time, with the key in the environment.
 */
export function inspector(
  transport: Transport,
  target: { url: string; key?: string; dataDir: string },
): Session {
  const exec = async (args: string[]) => {
    const where =
      transport === 'http'
        ? [target.url, '--transport', 'http']
        : ['--transport', 'stdio', STDIO.command, ...STDIO.args];
    try {
      const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', ...where, ...args], {
        timeout: 90_000,
        env: { ...process.env, ...(transport === 'stdio' ? stdioEnv(target.dataDir, target.key ?? '') : {}) },
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${e.stderr || e.stdout || e.message}`.trim().split('\n').slice(0, 3).join(' '));
    }
  };
  return {
    async list() {
      const r = await exec(['--method', 'tools/list']);
      return (r.tools as Array<{ name: string }>).map((t) => t.name);
    },
    call: (name, args) =>
      shown(
        exec([
          '--method',
          'tools/call',
          '--tool-name',
          name,
          ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]),
        ]),
      ),
    async close() {},
  };
}

const CLIENTS: Record<
  ClientName,
  (t: Transport, target: { url: string; key?: string; dataDir: string }) => Promise<Session> | Session
> = {
  'SDK v2 (2026-07-28)': v2,
  'SDK v1 (2025-11-25)': v1,
  'Inspector CLI 0.15': inspector,
};

/** What each case calls, and what the client must show. */
export const EXPECTED: Record<Exclude<Case, 'list' | 'success'>, RegExp> = {
  400: /^Error 400: .*username/,
  401: /^Error 401: /,
  403: /^Error 403: You can only update your own profile/,
  404: /^Error 404: .*nobody_here/,
  409: /^Error 409: .*matrix_target/,
  429: /^Error 429: Rate limit/,
};

/** Starts the all-in-one (in process, served over HTTP) the matrix runs against, and records its cells. */
export function matrixSuite() {
  const dir = tempDir();
  const state = {} as { lore: AllInOne; http: HttpServerHandle; url: string };
  const matrix: Array<{ client: ClientName; transport: Transport; case: Case; result: string }> = [];

  const register = async (username: string) => {
    const anon = await connectClient(appFetch(state.lore.app));
    const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username,
      email: `${username}@example.com`,
      displayName: username,
    });
    return r.data.apiKey;
  };

  beforeAll(async () => {
    const config = testConfig(dir.path);
    state.lore = await startAllInOne(config);
    state.http = await serveHttp(state.lore.app, config, 0);
    state.url = `${state.http.url}/mcp`;
    // The owner exists before any stdio process starts, so none of them races to create it.
    await ensureOwner(state.lore.aggregator, dir.path);
    await register('matrix_target');
  }, 60_000);
  afterAll(async () => {
    console.log(
      ['client matrix:', ...matrix.map((m) => `${m.client} | ${m.transport} | ${m.case} | ${m.result}`)].join(
        '\n',
      ),
    );
    await state.http?.close();
    await state.lore?.close();
    dir.cleanup();
  });

  const record = (client: ClientName, transport: Transport, c: Case, shownText: string, pass: boolean) =>
    matrix.push({
      client,
      transport,
      case: c,
      result: pass ? `ok: ${shownText.slice(0, 60)}` : `FAIL: ${shownText}`,
    });

  // Each Inspector run over stdio starts a whole Lore: two at a time is what two cores take.
  const twoAtATime = limiter(2);

  /**
   * One SDK session runs its cases in turn; the Inspector starts a process per case, so its cases
   * run side by side (each is independent of the others).
   */
  const each = async <T>(name: ClientName, items: readonly T[], fn: (item: T) => Promise<void>) => {
    if (name === 'Inspector CLI 0.15') await Promise.all(items.map((item) => twoAtATime(() => fn(item))));
    else for (const item of items) await fn(item);
  };

  /** Runs every case this client can reach on this transport, one session where the client allows. */
  async function exercise(name: ClientName, transport: Transport) {
    await main(name, transport);
    await unauthenticated(name, transport);
  }

  async function main(name: ClientName, transport: Transport) {
    const handle = `m_${name.split(' ')[1]!.replace(/\W/g, '').toLowerCase()}_${transport}`;
    const key = await register(handle);
    const session = await CLIENTS[name](transport, { url: state.url, key, dataDir: dir.path });
    try {
      // Listing first: the SDK v1 client then checks results against the output schemas.
      const tools = await session.list();
      expect(tools).toContain('agent_profile');
      record(name, transport, 'list', `${tools.length} tools`, true);

      const okCall = await session.call('agent_profile', { username: 'matrix_target' });
      expect(okCall.isError, okCall.text).toBe(false);
      expect(okCall.text).toContain('matrix_target');
      record(name, transport, 'success', okCall.text, true);

      const cases: Array<[Exclude<Case, 'list' | 'success' | 401 | 429>, string, Record<string, string>]> = [
        [400, 'agent_profile', { username: '!!' }],
        [403, 'agent_update', { username: 'matrix_target', bio: 'Not mine to change.' }],
        [404, 'agent_profile', { username: 'nobody_here' }],
        [409, 'agent_register', { username: 'matrix_target', email: 'dup@example.com', displayName: 'Dup' }],
      ];
      await each(name, cases, async ([code, tool, args]) => {
        const r = await session.call(tool, args);
        record(name, transport, code, r.text, EXPECTED[code].test(r.text));
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(EXPECTED[code]);
      });
      // Each Inspector run over stdio is a new Lore process with fresh per-process limits.
      if (!(name === 'Inspector CLI 0.15' && transport === 'stdio')) {
        let last: Shown | undefined;
        for (let i = 0; i < 6; i++)
          last = await session.call('den_post', { den: 'm/general', content: `Post ${i} from ${handle}.` });
        record(name, transport, 429, last!.text, EXPECTED[429].test(last!.text));
        expect(last!.text).toMatch(EXPECTED[429]);
      }
    } finally {
      await session.close();
    }
  }

  async function unauthenticated(name: ClientName, transport: Transport) {
    // 401: a key that is not one (over HTTP the header, over stdio LORE_API_KEY).
    const wrong = await CLIENTS[name](transport, {
      url: state.url,
      key: 'lore_sk_not_a_key',
      dataDir: dir.path,
    });
    try {
      await wrong.list();
      const r = await wrong.call('agent_profile', { username: 'matrix_target' });
      record(name, transport, 401, r.text, EXPECTED[401].test(r.text));
      expect(r.text).toMatch(EXPECTED[401]);
    } finally {
      await wrong.close();
    }
  }

  return { state, dir, record, each, exercise };
}
