/**
 * Every shell command the READMEs print, run as printed (slow: dozens of processes).
 *
 * The commands come from the fenced `sh` blocks of the root README and of every package's and
 * app's README. Each is either run here (a one-shot command to its exit code, a server started
 * on a free LORE_PORT and probed on /healthz, a stdio server listed through an MCP client, an
 * Inspector CLI command against a running all-in-one on a free port) or
 * listed in NOT_RUN with the reason it cannot run in a test. A README that gains a command that
 * is in neither fails the first test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { connectClient, NatsServerProcess } from '@lore/kit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

/** The READMEs whose commands are checked. */
function readmes(): string[] {
  const out = [join(ROOT, 'README.md')];
  for (const dir of ['packages', 'apps'])
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = join(ROOT, dir, name, 'README.md');
      try {
        readFileSync(path);
        out.push(path);
      } catch {}
    }
  return out;
}

/** The commands of a README's `sh` blocks: continuations joined, comments and blank lines dropped. */
function commandsOf(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    const joined = m[1]!.replace(/\\\n\s*/g, '');
    for (const raw of joined.split('\n')) {
      const line = raw.replace(/\s+#\s.*$/, '').trim();
      if (line && !line.startsWith('#')) out.push(line.replace(/\s+/g, ' '));
    }
  }
  return out;
}

const SERVICES = ['users', 'queries', 'approvals', 'knowledge', 'dens', 'dms', 'showcase', 'docs'];

/** The README's line for a service of a node on a NATS of one's own (root README, "Several services of one node"). */
const natsLine = (service: string) =>
  `LORE_NODE_FILE=$PWD/node.json LORE_NATS_INSECURE=true NATS_URL=nats://127.0.0.1:4222 pnpm --filter @lore/${service} start`;
const PRINTED_NATS = 'nats://127.0.0.1:4222';

type How =
  /** Runs to its end with exit code 0 (and this output, when given), in a scratch folder. */
  | { exit: RegExp | true; prepare?: (cwd: string) => void }
  /**
   * A server: started on a free LORE_PORT, /healthz answered, then stopped. `nats`: the command
   * names `nats://127.0.0.1:4222` and `$PWD/node.json`: it runs against this file's own
   * nats-server (its URL in place of that one) from a folder where the README's
   * `pnpm node-identity my-node > node.json` made the identity.
   */
  | { serve: true; nats?: true }
  /** A stdio server: an MCP client connects through it and lists tools. */
  | { stdio: true }
  /**
   * An Inspector CLI command against a running all-in-one (`pnpm lore start` on a free port put
   * in place of 7400), through the locally installed Inspector 0.15 binary in place of `npx …`:
   * exits 0 and prints this.
   */
  | { inspector: RegExp }
  /**
   * An Inspector CLI command that starts Lore over stdio itself, with the owner's key from
   * `data/owner.key`: run from the checkout (its `$PWD`) after `pnpm lore start` made the owner
   * in a scratch data directory (that file's path in place of `data/owner.key`): exits 0 and
   * prints this.
   */
  | { inspectorStdio: RegExp };

/** The commands run here, by their printed text. */
const RUN = new Map<string, How>([
  ['pnpm install && pnpm start', { serve: true }],
  ['pnpm lore help', { exit: /^ {2}articles load\b/m }],
  ['pnpm lore start', { serve: true }],
  ['pnpm lore start --stdio', { stdio: true }],
  ['pnpm lore start --port 7410', { serve: true }],
  [
    'pnpm lore docs ingest ./docs --source mydocs --base-uri https://docs.example.com/',
    {
      exit: /mydocs/,
      prepare: (cwd) => {
        mkdirSync(join(cwd, 'docs'), { recursive: true });
        writeFileSync(join(cwd, 'docs', 'index.md'), '# Getting started\n\nInstall it, then run it.\n');
      },
    },
  ],
  [
    'pnpm lore articles load ./articles',
    {
      exit: /1 created/,
      prepare: (cwd) => {
        mkdirSync(join(cwd, 'articles'), { recursive: true });
        writeFileSync(
          join(cwd, 'articles', 'first-steps.md'),
          '---\ntitle: First steps\ncategory: guides\n---\n\nOne node per office, a shared NATS, the owner key in a password manager.\n',
        );
      },
    },
  ],
  // The network commands run in this order in one folder: each uses what the one before wrote.
  ['pnpm lore network create-key --out network.key', { exit: /PUBLIC KEY|[A-Za-z0-9+/=]{40}/ }],
  ['pnpm lore network node-key > node.pub', { exit: true }],
  ['pnpm lore network sign-node --key network.key --node lore-k8s --public-key node.pub', { exit: true }],
  ['pnpm lore network rotate-node-key', { exit: true }],
  ['pnpm lore network confirm-key --node node-c --public-key node.pub', { exit: /node node-c/ }],
  [
    'npx @modelcontextprotocol/inspector@0.15.0 --cli http://127.0.0.1:7400/mcp --transport http --method tools/list',
    { inspector: /"name": "agent_register"/ },
  ],
  [
    'npx @modelcontextprotocol/inspector@0.15.0 --cli http://127.0.0.1:7400/mcp --transport http --method tools/call --tool-name agent_register --tool-arg username=my_agent --tool-arg email=me@example.com --tool-arg displayName="My agent"',
    { inspector: /Agent registered[\s\S]*lore_sk_/ },
  ],
  [
    'npx @modelcontextprotocol/inspector@0.15.0 --cli -e LORE_API_KEY="$(cat data/owner.key)" --transport stdio pnpm --dir "$PWD" lore start --stdio --method tools/call --tool-name agent_profile --tool-arg username=owner',
    { inspectorStdio: /"username": "owner"[\s\S]*"email"/ },
  ],
  ['pnpm node-identity my-node > node.json', { exit: true }],
  ['pnpm lint', { exit: true }],
  ['pnpm --filter @lore/search typecheck', { exit: true }],
  // The docs README prints no start commands of its own.
  ...SERVICES.filter((s) => s !== 'docs').flatMap(
    (s): Array<[string, How]> => [
      [`pnpm --filter @lore/${s} start`, { serve: true }],
      [`pnpm --filter @lore/${s} start -- --stdio`, { stdio: true }],
      [natsLine(s), { serve: true, nats: true }],
    ],
  ),
]);

const PACKED =
  'packs and installs tarballs and runs the installed binary outside the checkout: test/deploy-pack.test.ts does exactly this (pack, npm install into an empty folder, start over HTTP and over stdio with NATS)';
const TEST_RUN = 'runs tests: it is one of the test tiers themselves (pnpm test, pnpm test:slow, CI)';
const SYNOPSIS =
  "a synopsis with placeholders (<inputs>, <dir>, <file>) rather than a command; each form runs through `pnpm lore` from the root README's block above";

/** The commands not run here, with the reason. */
const NOT_RUN = new Map<string, string>([
  ['pnpm test', TEST_RUN],
  ['pnpm typecheck', 'type-checks every package (minutes on this machine); CI runs it on every change'],
  ['pnpm test:faults', TEST_RUN],
  ['pnpm test:slow', TEST_RUN],
  [
    'pnpm lore docs ingest https://docs.example.com/sitemap.xml',
    'fetches a site on the internet, which tests do not reach: sitemap crawling runs against a local site in test/docs.test.ts',
  ],
  ['pnpm --filter @lore/docs bench', 'a benchmark (never part of the tests; pnpm bench)'],
  ['pnpm --filter @lore/embed bench', 'a benchmark (never part of the tests; pnpm bench)'],
  ['pnpm bench:meaning', 'a benchmark (never part of the tests; pnpm bench)'],
  [
    'pnpm eval:knowledge',
    'an evaluation of minutes through every service (pnpm eval); its parts are tested in meaning-flow.test.ts',
  ],
  [
    'lore jetstream provision',
    "needs a NATS with Lore's users and the ops password: the same command (runJetStreamCli provision) runs against a private nats-server in packages/kit/src/bus/provision.test.ts, and pnpm dev runs it before its services (entry-points.test.ts)",
  ],
  [
    'npx tsx packages/knowledge/bench/ingest-search.ts [--chunks 10000] [--queries 500] [--embeddings]',
    'a benchmark (never part of the tests; pnpm bench)',
  ],
  ...[
    'lore start',
    'lore start --stdio',
    'lore start --port 7410',
    'lore docs ingest <inputs>',
    'lore articles load <dir>',
    'lore jetstream backup <stream> <file>',
    'lore jetstream restore <file>',
    'lore network create-key --out <file>',
    'lore network node-key',
    'lore network sign-node --key <file> --node <id> --public-key <file>',
    'lore network rotate-node-key',
    'lore network confirm-key --node <id> --public-key <file>',
    'lore network link',
    'lore help',
    'pnpm lore docs ingest <path or URL>... [--source NAME] [--base-uri URL] [--concurrency N] [--max-pages N] [--keep-missing]',
  ].map((c): [string, string] => [c, SYNOPSIS]),
  ['npm install /path/to/packs/*.tgz', PACKED],
  ['LORE_NATS_INSECURE=true NATS_URL=nats://127.0.0.1:4222 npx lore-users &', PACKED],
  ...['aggregator', ...SERVICES].map((s): [string, string] => [
    `pnpm pack:server ${s} --out ./packs`,
    PACKED,
  ]),
  ...SERVICES.map((s) => `lore-${s}`).flatMap(
    (bin): Array<[string, string]> => [
      [`npx ${bin}`, PACKED],
      [`npx ${bin} --stdio`, PACKED],
      [`LORE_NATS_INSECURE=true NATS_URL=nats://127.0.0.1:4222 npx ${bin}`, PACKED],
    ],
  ),
  ['npx lore start', PACKED],
  ['npx lore start --stdio', PACKED],
]);

/** The Inspector CLI 0.15 as installed here (what `npx @modelcontextprotocol/inspector@0.15.0` runs). */
const INSPECTOR_BIN = join(ROOT, 'apps/aggregator/node_modules/.bin/mcp-inspector');

/** Whole families not run here: test runs of one package or file. */
const NOT_RUN_FORMS: Array<[RegExp, string]> = [[/^(npx|pnpm) vitest run /, TEST_RUN]];

const reasonNotRun = (command: string): string | undefined =>
  NOT_RUN.get(command) ?? NOT_RUN_FORMS.find(([re]) => re.test(command))?.[1];

const all = readmes().flatMap((path) =>
  commandsOf(readFileSync(path, 'utf8')).map((command) => ({ readme: relative(ROOT, path), command })),
);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// Scratch folders inside the checkout (pnpm finds the workspace from there), in the ignored data/.
mkdirSync(join(ROOT, 'data'), { recursive: true });
const work = mkdtempSync(join(ROOT, 'data', 'readme-commands-'));
const network = join(work, 'network');
mkdirSync(network, { recursive: true });

function baseEnv(dataDir: string, port: number): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    LORE_DATA_DIR: dataDir,
    LORE_PORT: String(port),
    LORE_LOG_LEVEL: 'warn',
    LORE_INGEST_OWN_DOCS: 'false',
    // Nothing of the environment's: the NATS commands print their own settings, and run as printed.
    LORE_NATS_INSECURE: '',
    LORE_NODE_FILE: '',
    NATS_URL: '',
  };
}

/** Runs a command line through the shell, as typed, to its end. */
function runToEnd(command: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Stops a command started in its own process group, and everything it started. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {}
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, 10_000);
  await exited;
  clearTimeout(t);
}

/** A server command started in its own process group: the printed one, or for an Inspector command the all-in-one. */
function serving(how: How, line: string, env: Record<string, string>, port: number, cwd = ROOT) {
  const child = spawn('sh', ['-c', 'inspector' in how ? 'pnpm lore start' : line], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const healthy = () =>
    expect
      .poll(
        async () => {
          if (child.exitCode !== null) return `exited ${child.exitCode}: ${out.slice(-2000)}`;
          const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
          return r?.status;
        },
        { timeout: 90_000, interval: 250 },
      )
      .toBe(200);
  return { child, healthy, output: () => out };
}

/** This file's own nats-server with JetStream (no users, on loopback), started on first use. */
let nats: NatsServerProcess | undefined;
async function testNats(): Promise<string> {
  if (!nats) {
    const { port } = { port: await freePort() };
    nats = new NatsServerProcess(port, mkdtempSync(join(work, 'nats-')));
    await nats.start();
  }
  return nats.url;
}

/** A folder where the README's `pnpm node-identity my-node > node.json` ran, as its reader did. */
async function nodeFolder(): Promise<string> {
  const cwd = mkdtempSync(join(work, 'node-'));
  const r = await runToEnd('pnpm node-identity my-node > node.json', cwd, baseEnv(join(cwd, 'data'), 0));
  expect(r.code, r.out).toBe(0);
  return cwd;
}

describe('every command the READMEs print', () => {
  afterAll(async () => {
    await nats?.kill();
    rmSync(work, { recursive: true, force: true });
  });

  it('is either run here or listed with the reason it is not', () => {
    expect(all.length).toBeGreaterThan(20);
    const unaccounted = all.filter(({ command }) => !RUN.has(command) && !reasonNotRun(command));
    expect(unaccounted, 'add each to RUN or NOT_RUN in this file').toEqual([]);
    // And nothing listed here is stale: every entry is still printed somewhere.
    const printed = new Set(all.map((c) => c.command));
    const stale = [...RUN.keys(), ...NOT_RUN.keys()].filter((c) => !printed.has(c));
    expect(stale, 'no README prints these any more').toEqual([]);
  });

  for (const [command, how] of RUN) {
    const where = all.find((c) => c.command === command)?.readme ?? '?';
    it(`${command}  (${where})`, async () => {
      const port = await freePort();
      // `--port 7410` is run on a free port: the flag is what is under test, not that number.
      const line = command.replace('--port 7410', `--port ${port}`);
      if ('exit' in how) {
        const network_ = command.startsWith('pnpm lore network');
        const cwd = network_ ? network : mkdtempSync(join(work, 'run-'));
        how.prepare?.(cwd);
        const r = await runToEnd(line, cwd, baseEnv(join(cwd, 'data'), port));
        expect(r.code, r.out.slice(-3000)).toBe(0);
        if (how.exit !== true) expect(r.out).toMatch(how.exit);
        return;
      }
      const dataDir = mkdtempSync(join(work, 'data-'));
      const env = baseEnv(dataDir, port);
      if ('inspectorStdio' in how) {
        // The owner and its key file, as a first `pnpm start` leaves them.
        const first = serving({ serve: true }, 'pnpm lore start', env, port);
        try {
          await first.healthy();
        } finally {
          await stop(first.child);
        }
        const asTyped = command
          .replace('npx @modelcontextprotocol/inspector@0.15.0', INSPECTOR_BIN)
          .replace('data/owner.key', join(dataDir, 'owner.key'));
        const r = await runToEnd(asTyped, ROOT, env);
        expect(r.code, r.out.slice(-3000)).toBe(0);
        expect(r.out).toMatch(how.inspectorStdio);
        return;
      }
      if ('nats' in how) {
        const server = serving(
          how,
          line.replace(PRINTED_NATS, await testNats()),
          env,
          port,
          await nodeFolder(),
        );
        try {
          await server.healthy();
        } finally {
          await stop(server.child);
        }
        expect(server.output()).not.toMatch(/NatsInsecureError|event dropped/);
        return;
      }
      if ('stdio' in how) {
        const client = new Client({ name: 'readme', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: 'sh', args: ['-c', line], cwd: ROOT, env, stderr: 'pipe' }),
        );
        try {
          const { tools } = await client.listTools();
          expect(tools.length).toBeGreaterThan(0);
        } finally {
          await client.close();
        }
        return;
      }
      const server = serving(how, line, env, port);
      try {
        await server.healthy();
        if ('inspector' in how) {
          const asTyped = command
            .replace('npx @modelcontextprotocol/inspector@0.15.0', INSPECTOR_BIN)
            .replace('127.0.0.1:7400', `127.0.0.1:${port}`);
          const r = await runToEnd(asTyped, mkdtempSync(join(work, 'run-')), env);
          expect(r.code, r.out.slice(-3000)).toBe(0);
          expect(r.out).toMatch(how.inspector);
        }
      } finally {
        await stop(server.child);
      }
    }, 150_000);
  }

  it("the root README's users and dens lines make one node: a post in dens is the author's activity in users", async () => {
    const readme = all.filter((c) => c.readme === 'README.md').map((c) => c.command);
    const lines = ['users', 'dens'].map((svc) => {
      const line = readme.find((c) => c === natsLine(svc));
      expect(line, `the root README prints ${natsLine(svc)}`).toBeDefined();
      return line!;
    });
    expect(readme).toContain('pnpm node-identity my-node > node.json');
    const url = await testNats();
    const cwd = await nodeFolder();
    const [usersPort, densPort] = [await freePort(), await freePort()];
    const users = serving(
      { serve: true },
      lines[0]!.replace(PRINTED_NATS, url),
      {
        ...baseEnv(join(cwd, 'users-data'), usersPort),
        LORE_LOG_LEVEL: 'info',
      },
      usersPort,
      cwd,
    );
    const dens = serving(
      { serve: true },
      lines[1]!.replace(PRINTED_NATS, url),
      {
        ...baseEnv(join(cwd, 'dens-data'), densPort),
        LORE_LOG_LEVEL: 'info',
      },
      densPort,
      cwd,
    );
    try {
      await users.healthy();
      await dens.healthy();
      const anonymous = await connectClient(undefined, { url: `http://127.0.0.1:${usersPort}/mcp` });
      const registered = await anonymous.callTool({
        name: 'agent_register',
        arguments: { username: 'poster', email: 'poster@example.com', displayName: 'Poster' },
      });
      await anonymous.close();
      expect(registered.isError, JSON.stringify(registered.content)).toBeFalsy();
      const key = (registered.structuredContent as { apiKey: string }).apiKey;
      const atDens = await connectClient(undefined, { url: `http://127.0.0.1:${densPort}/mcp`, key });
      // dens verifies the key by asking users over NATS, then publishes the post signed by the node.
      const posted = await atDens.callTool({
        name: 'den_post',
        arguments: { den: 'general', title: 'Hello from dens', content: 'Two services, one node.' },
      });
      await atDens.close();
      expect(posted.isError, JSON.stringify(posted.content)).toBeFalsy();
      const atUsers = await connectClient(undefined, { url: `http://127.0.0.1:${usersPort}/mcp`, key });
      try {
        await expect
          .poll(
            async () => {
              const r = await atUsers.callTool({ name: 'agent_profile', arguments: { username: 'poster' } });
              return JSON.stringify(r.content);
            },
            { timeout: 60_000, interval: 500 },
          )
          .toContain('Hello from dens');
      } finally {
        await atUsers.close();
      }
      expect(users.output()).not.toMatch(/event dropped|unknown node/);
      // Both processes read the one identity the command made, not one of their own.
      const id = JSON.parse(readFileSync(join(cwd, 'node.json'), 'utf8')).id as string;
      expect(id).toBe('my-node');
    } finally {
      await stop(users.child);
      await stop(dens.child);
    }
  }, 240_000);
});
