/**
 * One server alone, as a user gets it: build and pack @lore/users with the workspace packages
 * it needs, install the tarballs with npm into an empty folder (third-party dependencies come
 * from the npm registry), then start the installed `lore-users` bin over HTTP (in-process bus)
 * and over stdio (on a private NATS server), and call it through real MCP clients. Then
 * @lore/ingest alone the same way: its parsers start from the installed dist/.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  call,
  connectClient,
  freePort,
  makePdf,
  NatsAuthFixture,
  NatsServerProcess,
  ok,
  tempDir,
} from '@lore/kit/testing';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, pack, ROOT } from '../../../scripts/pack.js';

// npm install from the registry: ten minutes on a busy machine, scaled like every tier's timeouts.
const SETUP_TIMEOUT = 600_000 * Number(process.env.LORE_TEST_TIME_SCALE || 1);

/**
 * LORE_TEST_NODE_DIR: a folder with another Node's `node` binary (CI's Node 22 run, .ci/run), put
 * first on PATH so that npm and the installed bins (`#!/usr/bin/env node`) run on it.
 */
const NODE_DIR = process.env.LORE_TEST_NODE_DIR;

/**
 * The dependencies whose `engines` ask for Node 22 while Lore runs on 20.19 or newer: the whole
 * suite runs on Node 20, and CI installs and runs the packed server on Node 22 as well (README,
 * "Quick start"). npm's EBADENGINE warnings on Node 20 name exactly these, nothing else.
 */
const NODE_22_ONLY = (name: string) =>
  name === '@nats-io/nuid' || name === 'cockatiel' || name.startsWith('@secretlint/');

const TRUST_AND_PROXY = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'npm_config_cafile',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
];

/** Only what a shell user would have: no test-runner variables, no CI NATS. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const path = process.env.PATH ?? '/usr/bin:/bin';
  const env: Record<string, string> = {
    PATH: NODE_DIR ? `${NODE_DIR}:${path}` : path,
    HOME: process.env.HOME ?? '/tmp',
  };
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  // How this machine reaches the registry, as a shell user's environment carries it: the CA
  // bundle (Node 22's own binary trusts only its built-in roots without it) and any proxy.
  for (const name of TRUST_AND_PROXY) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return { ...env, ...extra };
}

function tarList(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`lore-users exited with ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`lore-users did not become healthy:\n${log()}`);
}

/** A server started on `port` with its own data directory, its output kept for failures. */
function serve(command: string, args: string[], cwd: string, dataDir: string, port: number) {
  const child = spawn(command, args, {
    cwd,
    env: cleanEnv({ LORE_DATA_DIR: dataDir, LORE_PORT: String(port), LORE_LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  return { child, output: () => out };
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

describe('a service packed, installed with npm into an empty folder, and started alone', () => {
  const packs = tempDir('lore-packs-');
  const install = tempDir('lore-install-');
  let packed: Packed;
  let bin: string;

  let installLog = '';

  beforeAll(() => {
    packed = pack('users', packs.path, { quiet: true });
    // At warn level, so that npm's EBADENGINE warnings are there to read.
    const r = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=warn', ...packed.tarballs],
      {
        cwd: install.path,
        env: cleanEnv({}),
        encoding: 'utf8',
        timeout: SETUP_TIMEOUT,
      },
    );
    installLog = `${r.stdout}\n${r.stderr}`;
    if (r.status !== 0)
      throw new Error(`npm install failed (${r.error?.message ?? r.status}):\n${installLog}`);
    bin = join(install.path, 'node_modules', '.bin', 'lore-users');
  }, SETUP_TIMEOUT);

  it('installs and runs on the Node it is given (LORE_TEST_NODE_DIR, or this one), whose engines agree', () => {
    const version = execFileSync('node', ['-p', 'process.versions.node'], {
      env: cleanEnv({}),
      encoding: 'utf8',
    }).trim();
    if (NODE_DIR)
      expect(version).toBe(
        execFileSync(join(NODE_DIR, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim(),
      );
    const [major, minor] = version.split('.').map(Number) as [number, number];
    // Lore's own engines: Node 20.19 or newer.
    expect(major > 20 || (major === 20 && minor >= 19), version).toBe(true);
    const flagged = [...installLog.matchAll(/EBADENGINE\s+package: '(@?[^@']+)@/g)].map((m) => m[1]!);
    const names = [...new Set(flagged)].sort();
    // On 22 nothing complains; on 20, only the dependencies the README names.
    if (major >= 22) expect(names, installLog).toEqual([]);
    else for (const name of names) expect(NODE_22_ONLY(name), `${name} asks for a newer Node`).toBe(true);
  });

  afterAll(() => {
    packs.cleanup();
    install.cleanup();
  });

  it('packs embed, schema, search, kit and the service, with dist and migrations and no sources', () => {
    // @lore/embed is the kit's port to an embedder; the local model (@lore/minilm-onnx) is its
    // optional peer, so a server packed alone searches by words unless that is installed beside it.
    expect(packed.tarballs.map((t) => t.split('/').pop())).toEqual([
      'lore-embed-0.1.0.tgz',
      'lore-schema-0.1.0.tgz',
      'lore-search-0.1.0.tgz',
      'lore-kit-0.1.0.tgz',
      'lore-users-0.1.0.tgz',
    ]);
    const [embed, schema, search, kit, users] = packed.tarballs.map(tarList) as [
      string[],
      string[],
      string[],
      string[],
      string[],
    ];
    expect(embed).toContain('package/dist/index.js');
    expect(users).toContain('package/dist/main.js');
    expect(users).toContain('package/dist/index.js');
    expect(users).toContain('package/dist/index.d.ts');
    expect(users).toContain('package/migrations/meta/_journal.json');
    expect(users.some((f) => /^package\/migrations\/0000_.*\.sql$/.test(f))).toBe(true);
    expect(kit).toContain('package/migrations/meta/_journal.json');
    expect(kit).toContain('package/dist/testing/index.js');
    expect(schema).toContain('package/dist/index.js');
    expect(search).toContain('package/dist/index.js');
    for (const files of [embed, schema, search, kit, users]) {
      expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
      // The checkout's bundle names files by where pnpm put them: it is built where installed.
      expect(files.filter((f) => f.startsWith('package/dist/bundle/'))).toEqual([]);
    }
  });

  it('installs manifests with real versions and dist exports', () => {
    for (const name of ['users', 'kit', 'schema']) {
      const text = readFileSync(join(install.path, 'node_modules', '@lore', name, 'package.json'), 'utf8');
      expect(text).not.toMatch(/"(workspace|catalog):/);
      const manifest = JSON.parse(text) as { exports: Record<string, { default: string }> };
      expect(manifest.exports['.']?.default).toBe('./dist/index.js');
    }
    const users = JSON.parse(
      readFileSync(join(install.path, 'node_modules', '@lore', 'users', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> };
    expect(users.dependencies['@lore/kit']).toBe('0.1.0');
    const main = realpathSync(bin);
    expect(readFileSync(main, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(main).mode & 0o111).not.toBe(0);
  });

  it('serves its tools over HTTP with its own database: agent_register through a real MCP client', async () => {
    const data = tempDir('lore-alone-');
    const port = await freePort();
    const { child, output } = serve(bin, [], install.path, data.path, port);
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, child, output);
      expect(output()).toContain('"bus":"memory"');
      const anon = await connectClient(undefined, { url: `${url}/mcp` });
      const username = unique('alone');
      const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: 'Alone',
      });
      expect(reg.data.apiKey).toMatch(/^lore_sk_/);
      // The key is verified by the same process over its in-process bus.
      expect((await call(anon, 'agent_profile', { username })).error?.code).toBe(401);
      const me = await connectClient(undefined, { url: `${url}/mcp`, key: reg.data.apiKey });
      const profile = await ok<{ agent: { username: string } }>(me, 'agent_profile', { username });
      expect(profile.data.agent.username).toBe(username);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(existsSync(join(data.path, 'users.db'))).toBe(true);
    } finally {
      expect(await stop(child)).toBe(0);
      data.cleanup();
    }
  }, 120_000);

  it("bundled where it is installed, as the image's install stage does, serves from its own migrations", async () => {
    const dir = join(install.path, 'node_modules', '@lore', 'users');
    execFileSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs'), dir], {
      cwd: install.path,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const data = tempDir('lore-bundled-');
    const port = await freePort();
    const { child, output } = serve(
      process.execPath,
      ['--optimize-for-size', join(dir, 'dist/bundle/main.js')],
      data.path,
      data.path,
      port,
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, child, output);
      const anon = await connectClient(undefined, { url: `${url}/mcp` });
      const username = unique('bundled');
      const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: 'Bundled',
      });
      const me = await connectClient(undefined, { url: `${url}/mcp`, key: reg.data.apiKey });
      const profile = await ok<{ agent: { username: string } }>(me, 'agent_profile', { username });
      expect(profile.data.agent.username).toBe(username);
      expect(existsSync(join(data.path, 'users.db'))).toBe(true);
      // The bundle finds the local model's packages where npm installed them.
      expect(output()).not.toContain('local embedding model unavailable');
    } finally {
      expect(await stop(child)).toBe(0);
      data.cleanup();
    }
  }, 120_000);

  it('serves over stdio with the bus on NATS when NATS_URL is set', async () => {
    if (!NatsServerProcess.binaryAvailable()) {
      if (process.env.CI) throw new Error('nats-server is required under CI for the stdio + NATS check');
      console.warn('nats-server is not installed here: stdio + NATS check skipped');
      return;
    }
    const data = tempDir('lore-stdio-');
    const store = tempDir('lore-stdio-nats-');
    const auth = new NatsAuthFixture({ nodes: ['pack-stdio'], dir: store.path });
    const nats = new NatsServerProcess(await freePort(), store.path, auth);
    await nats.start();
    let err = '';
    const transport = new StdioClientTransport({
      command: bin,
      args: ['--stdio'],
      cwd: install.path,
      env: cleanEnv({
        LORE_DATA_DIR: data.path,
        LORE_NODE_ID: 'pack-stdio',
        NATS_URL: nats.url,
        ...auth.env('node'),
        LORE_LOG_LEVEL: 'info',
      }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => {
      err += d;
    });
    const client = new Client({ name: 'deploy-pack', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('agent_register');
      expect(names).toContain('agent_profile');
      const username = unique('stdio');
      const reg = await ok<{ apiKey: string }>(client, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: 'Stdio',
      });
      expect(reg.data.apiKey).toMatch(/^lore_sk_/);
      expect(err).toContain('"bus":"nats"');
    } finally {
      await client.close();
      await nats.kill();
      data.cleanup();
      store.cleanup();
    }
  }, 120_000);
});

describe('@lore/ingest packed, installed with npm into an empty folder, parsing in its parser processes', () => {
  const packs = tempDir('lore-ingest-packs-');
  const install = tempDir('lore-ingest-install-');
  let packed: Packed;

  beforeAll(() => {
    packed = pack('ingest', packs.path, { quiet: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packed.tarballs], {
      cwd: install.path,
      env: cleanEnv({}),
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: SETUP_TIMEOUT,
    });
  }, SETUP_TIMEOUT);

  afterAll(() => {
    packs.cleanup();
    install.cleanup();
  });

  it('packs dist with the parser entry beside the chunks, and no sources', () => {
    // @lore/embed comes along (the endpoint client docs reaches through ingest);
    // the local model does not: it is an optional peer of @lore/embed that only knowledge installs.
    expect(packed.tarballs.map((t) => t.split('/').pop())).toEqual([
      'lore-embed-0.1.0.tgz',
      'lore-ingest-0.1.0.tgz',
    ]);
    const files = tarList(packed.main);
    for (const f of ['index.js', 'index.d.ts', 'text.js', 'text.d.ts', 'parse-worker.js'])
      expect(files).toContain(`package/dist/${f}`);
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
  });

  it('converts HTML and a PDF, refuses a nested page and runs a task module in parsers', () => {
    writeFileSync(join(install.path, 'doc.pdf'), makePdf([['Installed parsers read this']]));
    writeFileSync(
      join(install.path, 'check.mjs'),
      `import { readFileSync } from 'node:fs';
import { convertHtml, ParseLimitError, parserPool, pdfToText, runIsolated } from '@lore/ingest';
const html = await convertHtml('<title>Installed</title><h1>Hello</h1><p>from dist</p>');
const pdf = await pdfToText(readFileSync('doc.pdf'));
const nested = await convertHtml('<div>'.repeat(5000)).then(
  () => 'converted',
  (e) => (e instanceof ParseLimitError ? e.limit : String(e)),
);
const depth = await runIsolated(import.meta.resolve('@lore/ingest/text'), 'markdownNestingDepth', ['- a\\n  - b\\n']);
const threads = parserPool().threads;
await parserPool().close();
console.log(JSON.stringify({ html, pdf, nested, depth, threads }));
`,
    );
    const out = execFileSync('node', ['check.mjs'], {
      cwd: install.path,
      env: cleanEnv({}),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(result).toEqual({
      html: { title: 'Installed', markdown: '# Hello\n\nfrom dist' },
      pdf: { text: 'Installed parsers read this', pages: 1 },
      nested: 'nesting',
      depth: 2,
      threads: expect.any(Number),
    });
    expect(result.threads).toBeGreaterThan(0);
    // Installed with its third-party dependencies only: nothing of the kit.
    expect(existsSync(join(install.path, 'node_modules', '@lore', 'kit'))).toBe(false);
  }, 120_000);
});
