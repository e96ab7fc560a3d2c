/**
 * The README's hand-written stdio configuration (`pnpm --dir /path/to/lore lore start --stdio`)
 * when a build is due: after a source change, and where nothing was ever built. scripts/built.mjs
 * builds first; everything it and turbo print goes to stderr, so stdout carries nothing but
 * JSON-RPC and a stock SDK client connects at the first attempt. (Slow: each case builds.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@lore/kit/testing';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { STDIO } from './clients-matrix.js';
import { ROOT } from './helpers.js';

const STAMP = join(ROOT, 'node_modules/.cache/lore/built');

/** Runs the printed command raw: every line on stdout, until the answer to `initialize`. */
function rawSession(dataDir: string, checkout = ROOT): Promise<{ stdout: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(STDIO.command, ['--dir', checkout, ...STDIO.args.slice(2)], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        LORE_DATA_DIR: dataDir,
        NATS_URL: '',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let pending = '';
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (d) => {
      pending += d;
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        lines.push(line);
        if (/"id":\s*1\b/.test(line)) child.stdin.end();
        nl = pending.indexOf('\n');
      }
    });
    child.once('error', reject);
    child.once('exit', () => resolve({ stdout: pending ? [...lines, pending] : lines, stderr }));
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      })}\n`,
    );
  });
}

/** A stock SDK client through the printed command: the errors it reported, and the tools it listed. */
async function sdkSession(dataDir: string): Promise<{ errors: string[]; tools: number }> {
  const errors: string[] = [];
  const client = new Client(
    { name: 'stdio-build', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  client.onerror = (e) => errors.push(e.message);
  await client.connect(
    new StdioClientTransport({
      ...STDIO,
      env: { PATH: process.env.PATH ?? '', LORE_DATA_DIR: dataDir, NATS_URL: '' },
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    return { errors, tools: tools.length };
  } finally {
    await client.close();
  }
}

/** Makes the next start's build due: a source is newer than the last build. */
function touchSource() {
  const now = new Date();
  utimesSync(join(ROOT, 'packages/schema/src/index.ts'), now, now);
}

describe('`pnpm --dir <checkout> lore start --stdio` when a build is due', () => {
  const data = tempDir('lore-stdio-build-');
  afterAll(() => data.cleanup());

  it('after a source change: it builds on stderr, and stdout is JSON-RPC only', async () => {
    // Current first (this checkout may never have been built), then one source changes.
    expect(spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], { stdio: 'ignore' }).status).toBe(
      0,
    );
    touchSource();
    const { stdout, stderr } = await rawSession(join(data.path, 'raw'));
    expect(stderr).toMatch(/Building Lore's JavaScript \(.*changed since the last build\)/);
    expect(stdout.length).toBeGreaterThan(0);
    for (const line of stdout) {
      const message = JSON.parse(line) as { jsonrpc?: string };
      expect(message.jsonrpc, line).toBe('2.0');
    }
    expect(stdout.some((l) => /"id":\s*1\b/.test(l) && l.includes('"result"'))).toBe(true);
    // And a stock client, once more after another change: no parse error, the whole catalog.
    touchSource();
    const sdk = await sdkSession(join(data.path, 'sdk'));
    expect(sdk.errors).toEqual([]);
    expect(sdk.tools).toBeGreaterThan(40);
  }, 600_000);

  it('where nothing was ever built here (no build stamp): the same', async () => {
    rmSync(STAMP, { force: true });
    expect(existsSync(STAMP)).toBe(false);
    const { stdout, stderr } = await rawSession(join(data.path, 'never'));
    expect(stderr).toMatch(/Building Lore's JavaScript \(never built here\)/);
    for (const line of stdout) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, line).toBe('2.0');
    expect(stdout.some((l) => /"id":\s*1\b/.test(l) && l.includes('"result"'))).toBe(true);
    expect(existsSync(STAMP)).toBe(true);
  }, 600_000);

  it('on a fresh copy of the checkout, `pnpm install` builds, and the stdio command then starts without building', async () => {
    // The checkout's files as git knows them (what a clone holds), without node_modules or dist.
    const copy = join(data.path, 'fresh');
    mkdirSync(copy, { recursive: true });
    const files = spawnSync(
      'sh',
      ['-c', `git ls-files -z | tar --null -T - -cf - | tar -xf - -C '${copy}'`],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(files.status, files.stderr).toBe(0);
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
    const install = spawnSync('pnpm', ['install', '--frozen-lockfile', '--offline'], {
      cwd: copy,
      encoding: 'utf8',
      env: { ...process.env, LORE_BUILD_ON_INSTALL: '', ONNXRUNTIME_NODE_INSTALL: 'skip' },
      timeout: 900_000,
    });
    const installed = `${install.stdout}\n${install.stderr}`;
    expect(install.status, installed).toBe(0);
    // The root `prepare` step ran the build.
    expect(installed).toMatch(/prepare[\s\S]*Building Lore's JavaScript \(never built here\)/);
    const check = spawnSync(process.execPath, [join(copy, 'scripts/built.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(check.stdout, check.stderr).toBe('current\n');
    // The README's stdio command in that copy: nothing to build, JSON-RPC only on stdout.
    const { stdout, stderr } = await rawSession(join(data.path, 'fresh-data'), copy);
    expect(stderr).not.toMatch(/Building Lore's JavaScript/);
    for (const line of stdout) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, line).toBe('2.0');
    expect(stdout.some((l) => /"id":\s*1\b/.test(l) && l.includes('"result"'))).toBe(true);
  }, 900_000);
});
