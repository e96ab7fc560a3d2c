import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, ok } from '@lore/kit/testing';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

/** Runs a command as a user types it, from `cwd`; resolves with its exit code and output. */
function sh(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: opts.cwd ?? ROOT, env: { ...process.env, NATS_URL: '', ...opts.env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the `lore` command as the README prints it', () => {
  // Inside the checkout (pnpm finds the workspace from there), in the ignored data/ folder.
  mkdirSync(join(ROOT, 'data'), { recursive: true });
  const work = mkdtempSync(join(ROOT, 'data', 'cli-test-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('`lore help` lists every command, one line each', async () => {
    const r = await sh('pnpm', ['lore', 'help']);
    expect(r.code).toBe(0);
    for (const command of ['start', 'start --stdio', 'start --port', 'docs ingest', 'articles load', 'help'])
      expect(r.stdout).toMatch(new RegExp(`^  ${command}\\b.* \\S`, 'm'));
  }, 60_000);

  it('`pnpm lore articles load ./articles --author owner` loads the folder it names', async () => {
    const cwd = join(work, 'articles-run');
    mkdirSync(join(cwd, 'articles'), { recursive: true });
    writeFileSync(
      join(cwd, 'articles', 'first-steps.md'),
      '---\ntitle: First steps\ncategory: guides\n---\n\nHow we run Lore on our team: one node per office, a shared NATS, and the owner key kept in a password manager.\n',
    );
    const r = await sh('pnpm', ['lore', 'articles', 'load', './articles', '--author', 'owner'], {
      cwd,
      env: { LORE_DATA_DIR: join(cwd, 'data'), LORE_LOG_LEVEL: 'warn' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ first-steps \(created\)/);
    expect(r.stdout).toMatch(/1 created/);
  }, 60_000);

  it('`--port` without a number is a usage error, not NaN', async () => {
    for (const args of [['--port'], ['--port', 'abc']]) {
      const r = await sh('pnpm', ['lore', 'start', ...args], { env: { LORE_DATA_DIR: join(work, 'port') } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--port/);
      expect(r.stderr).not.toMatch(/NaN/);
    }
  }, 60_000);

  it('a port in use is one line naming the port and LORE_PORT', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((res) =>
      blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
    );
    try {
      const r = await sh('pnpm', ['lore', 'start'], {
        env: { LORE_DATA_DIR: join(work, 'busy'), LORE_PORT: String(port), LORE_LOG_LEVEL: 'warn' },
      });
      expect(r.code).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('lore:') || /^\s+at /.test(l));
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^lore: Port ${port} .*in use.*LORE_PORT`))]);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('the stdio configuration the banner prints works pasted, and follows a rotated owner key', async () => {
    const dataDir = join(work, 'banner');
    const child: ChildProcess = spawn('pnpm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: '', LORE_DATA_DIR: dataDir, LORE_PORT: '0', LORE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the stop reaches the server behind pnpm too.
      detached: true,
    });
    let out = '';
    child.stderr!.on('data', (d) => {
      out += d;
    });
    try {
      await expect
        .poll(() => /stdio[^\n]*:\n(\{[\s\S]*?\n\})\n/.test(out), { timeout: 90_000, interval: 200 })
        .toBe(true);
      const endpoint = /Lore is running at (\S+)/.exec(out)![1]!;
      const pasted = JSON.parse(/stdio[^\n]*:\n(\{[\s\S]*?\n\})\n/.exec(out)![1]!) as {
        mcpServers: { lore: { command: string; args: string[]; env: Record<string, string> } };
      };
      const server = pasted.mcpServers.lore;
      expect(server.command.startsWith('/')).toBe(true);
      expect(server.env.LORE_DATA_DIR).toBe(dataDir);

      // A host starts it from wherever it runs: not the checkout.
      const client = new V1Client({ name: 'pasted', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          ...server,
          cwd: tmpdir(),
          env: { ...server.env, LORE_LOG_LEVEL: 'warn' },
        }),
      );
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(30);
        const me = await client.callTool({ name: 'agent_profile', arguments: { username: 'owner' } });
        expect(me.isError).toBeFalsy();

        // The owner rotates its key over HTTP: owner.key follows, and the next start would print it.
        const oldKey = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim();
        const http = await connectClient(undefined, { url: endpoint, key: oldKey });
        const rotated = await ok<{ apiKey: string }>(http, 'agent_rotate_key', {});
        expect(readFileSync(join(dataDir, 'owner.key'), 'utf8').trim()).toBe(rotated.data.apiKey);
      } finally {
        await client.close();
      }
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }, 180_000);
});
