import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient, ok, testConfig } from '@lore/kit/testing';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureOwner, startAllInOne } from '../src/index.js';
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
    // An author must be an agent of the node: nobody yet, so the load is refused and nothing is written.
    const env = { LORE_DATA_DIR: join(cwd, 'data'), LORE_LOG_LEVEL: 'warn' };
    const refused = await sh('pnpm', ['lore', 'articles', 'load', './articles', '--author', 'nobody'], {
      cwd,
      env,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "No agent @nobody on this node: --author must name a registered agent (or leave it out to credit 'lore'). Nothing was loaded.",
    );
    // `pnpm start` creates the owner the README's command credits.
    const lore = await startAllInOne(testConfig(env.LORE_DATA_DIR, { LORE_INGEST_OWN_DOCS: 'false' }));
    await ensureOwner(lore.aggregator, env.LORE_DATA_DIR);
    await lore.close();
    const r = await sh('pnpm', ['lore', 'articles', 'load', './articles', '--author', 'owner'], { cwd, env });
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

  it('a port in use is one line naming the port and LORE_PORT, said before anything starts', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((res) =>
      blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
    );
    try {
      const r = await sh('pnpm', ['lore', 'start'], {
        env: { LORE_DATA_DIR: join(work, 'busy'), LORE_PORT: String(port), LORE_LOG_LEVEL: 'info' },
      });
      expect(r.code).toBe(1);
      // Nothing claims to have started on a port it never got.
      expect(r.stderr).not.toMatch(/all-in-one started/);
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

        // Started with another agent's key, the process says it acts as that agent, not the owner.
        const guest = await ok<{ apiKey: string }>(http, 'agent_register', {
          username: 'stdio_guest',
          email: 'stdio_guest@example.com',
          displayName: 'Stdio guest',
        });
        const transport = new StdioClientTransport({
          ...server,
          cwd: tmpdir(),
          env: { ...server.env, LORE_API_KEY: guest.data.apiKey, LORE_LOG_LEVEL: 'info' },
          stderr: 'pipe',
        });
        let logged = '';
        transport.stderr!.on('data', (d) => {
          logged += d;
        });
        const asGuest = new V1Client({ name: 'guest', version: '1.0.0' });
        await asGuest.connect(transport);
        try {
          await expect
            .poll(() => /serving the Lore catalog over stdio/.test(logged), { timeout: 30_000 })
            .toBe(true);
          const line = logged.split('\n').find((l) => l.includes('serving the Lore catalog over stdio'))!;
          expect(JSON.parse(line)).toMatchObject({ agent: 'stdio_guest', keyFrom: 'LORE_API_KEY' });
        } finally {
          await asGuest.close();
        }
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
