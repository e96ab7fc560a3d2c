import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { connectClient } from '@lore/kit/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { ownDocumentation } from '../src/services.js';
import { ROOT } from './helpers.js';

/** Runs a command as a user types it from the checkout; resolves with its exit code and output. */
function sh(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...process.env, NATS_URL: '', ...env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function blockPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  const port = await new Promise<number>((res) =>
    server.listen(0, '127.0.0.1', () => res((server.address() as { port: number }).port)),
  );
  return { port, server };
}

/** Lines a user would read as the failure: the entry's own lines and any stack frame. */
const failureLines = (stderr: string, prefix: string) =>
  stderr.split('\n').filter((l) => l.startsWith(prefix) || /^\s+at /.test(l));

// Each service's entry goes through the same kit path; users and docs stand for all of them.
// Run as `npx lore-<service>` runs it: the entry itself (pnpm's script runner would rewrite the exit code).
describe.each(['users', 'docs'])('`lore-%s` (a service alone)', (service) => {
  mkdirSync(join(ROOT, 'data'), { recursive: true });
  const work = mkdtempSync(join(ROOT, 'data', `entry-${service}-`));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const env = { LORE_DATA_DIR: work, LORE_LOG_LEVEL: 'warn' };
  const start = (args: string[], extra: Record<string, string> = {}) =>
    sh(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['--conditions=development', join('packages', service, 'src/main.ts'), ...args],
      { ...env, ...extra },
    );

  it('a port in use is one line naming the port and LORE_PORT, and a non-zero exit', async () => {
    const { port, server } = await blockPort();
    try {
      for (const how of [
        { args: [], env: { LORE_PORT: String(port) } },
        { args: ['--port', String(port)] },
      ]) {
        const r = await start(how.args, how.env);
        expect(r.code, r.stderr).toBe(1);
        expect(failureLines(r.stderr, `lore-${service}:`)).toEqual([
          expect.stringMatching(new RegExp(`^lore-${service}: Port ${port} .*in use.*LORE_PORT`)),
        ]);
        // Said before the service starts: nothing logs that it listens or serves.
        expect(r.stderr).not.toMatch(/"msg":"lore-\w+ (listening|serving)/);
      }
    } finally {
      server.close();
    }
  }, 120_000);

  it('`--port` with no value or no number is a one-line usage error', async () => {
    for (const args of [['--port'], ['--port', 'abc'], ['--port', '70000'], ['--bogus']]) {
      const r = await start(args);
      expect(r.code, r.stderr).toBe(2);
      const lines = failureLines(r.stderr, `lore-${service}:`);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(args[0] === '--bogus' ? /--bogus/ : /--port/);
      expect(lines[0]).toMatch(/Usage: lore-\w+ \[--stdio\] \[--port N\]/);
      expect(r.stderr).not.toMatch(/NaN/);
    }
  }, 120_000);

  it('a bad value of one of its own settings stops it with a message naming the variable', async () => {
    const own = service === 'users' ? 'LORE_ACTIVE_WINDOW_MINUTES' : 'LORE_ANSWER_QUOTA_PER_DAY';
    const r = await start([], { [own]: 'lots' });
    expect(r.code, r.stderr).toBe(1);
    expect(failureLines(r.stderr, `lore-${service}:`)).toEqual([`lore-${service}: Invalid configuration:`]);
    expect(r.stderr).toContain(`  - ${own}: `);
  }, 120_000);
});

describe('`pnpm dev` takes its base port from LORE_PORT', () => {
  mkdirSync(join(ROOT, 'data'), { recursive: true });
  it('a LORE_PORT that is not a port is a one-line usage error naming LORE_PORT, before anything starts', async () => {
    for (const value of ['abc', '1e3', '0x1f', '0', '70000', '7400x']) {
      const r = await sh('pnpm', ['dev', 'users'], { LORE_PORT: value });
      expect(r.code, r.stderr).not.toBe(0);
      expect(failureLines(r.stderr, 'dev:')).toEqual([
        expect.stringMatching(
          new RegExp(`^dev: LORE_PORT must be a port number .*got '${value}'.*Usage: pnpm dev`),
        ),
      ]);
      expect(r.stdout).not.toContain('dev: starting');
    }
  }, 120_000);
  it('serves the aggregator on LORE_PORT and the service on the next port, and stops cleanly', async () => {
    const { port: base, server } = await blockPort();
    // A free base: the port the blocker held is free again once it closes (services take base+1).
    await new Promise<void>((r) => server.close(() => r()));
    const child: ChildProcess = spawn('pnpm', ['dev', 'users'], {
      cwd: ROOT,
      // Without NATS_URL, as on a fresh machine: the script runs the shipped, authenticated NATS.
      env: { ...process.env, NATS_URL: '', LORE_PORT: String(base), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the stop reaches pnpm, the script and the servers behind it.
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await expect
        .poll(() => out.includes(`Lore is up at http://127.0.0.1:${base}/mcp`) || child.exitCode !== null, {
          timeout: 150_000,
          interval: 250,
        })
        .toBe(true);
      expect(out).toContain(`Lore is up at http://127.0.0.1:${base}/mcp`);
      expect(out).toContain(`users:${base + 1}`);
      const health = await fetch(`http://127.0.0.1:${base}/healthz`);
      expect(health.ok).toBe(true);
      const users = await fetch(`http://127.0.0.1:${base + 1}/healthz`);
      expect(users.ok).toBe(true);
      // Its NATS (base + 9) lets each service pull only from its own durable consumers: the dms
      // user is refused a pull from the users service's consumer of this node.
      const passwords = JSON.parse(readFileSync(join(ROOT, 'data/dev/nats-passwords.json'), 'utf8'));
      const pull = async (user: 'dms' | 'users') => {
        const nc = await connect({
          servers: `nats://127.0.0.1:${base + 9}`,
          user,
          pass: passwords[user],
          // Replies come to the user's own inbox, the only one it may read.
          inboxPrefix: `_INBOX.${user}`,
          maxReconnectAttempts: 0,
        });
        try {
          return await nc
            .request(
              '$JS.API.CONSUMER.MSG.NEXT.LORE_EVENTS.users-activity-dms-dev',
              '{"batch":1,"no_wait":true}',
              {
                timeout: 2_000,
              },
            )
            .then(
              () => true,
              () => false,
            );
        } finally {
          await nc.close();
        }
      };
      // The owner's own credentials are answered (the consumer exists); another service's are not.
      await expect.poll(() => pull('users'), { timeout: 30_000 }).toBe(true);
      expect(await pull('dms')).toBe(false);
      process.kill(-child.pid!, 'SIGINT');
      const code = await exited;
      expect([0, 130, null]).toContain(code);
      expect(out).toContain('dev: stopping');
      // Nothing is left listening on either port.
      await expect(fetch(`http://127.0.0.1:${base}/healthz`)).rejects.toThrow();
      await expect(fetch(`http://127.0.0.1:${base + 1}/healthz`)).rejects.toThrow();
    } finally {
      try {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }
  }, 200_000);

  it("serves the same documentation corpus as `pnpm start`: Lore's own READMEs as `lore`", async () => {
    const { port: base, server } = await blockPort();
    await new Promise<void>((r) => server.close(() => r()));
    const child: ChildProcess = spawn('pnpm', ['dev', '--no-watch', 'users', 'docs'], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: '', LORE_PORT: String(base), NO_COLOR: '1' },
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
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await expect
        .poll(() => out.includes(`Lore is up at http://127.0.0.1:${base}/mcp`) || child.exitCode !== null, {
          timeout: 150_000,
          interval: 250,
        })
        .toBe(true);
      expect(out).toContain(`Lore is up at http://127.0.0.1:${base}/mcp`);
      // The owner the aggregator made on first start, as `pnpm start` makes one.
      const key = readFileSync(join(ROOT, 'data/dev/aggregator/owner.key'), 'utf8').trim();
      const client = await connectClient(undefined, { url: `http://127.0.0.1:${base}/mcp`, key });
      try {
        const r = await client.callTool({ name: 'docs_corpora', arguments: {} });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        const corpora = (r.structuredContent as { corpora: { source: string; documents: number }[] }).corpora;
        const lore = corpora.find((c) => c.source === 'lore');
        // Every README `pnpm start` ingests (its list, from the same checkout), no fewer.
        expect(lore?.documents).toBe(ownDocumentation(ROOT).files.length);
      } finally {
        await client.close();
      }
      process.kill(-child.pid!, 'SIGINT');
      expect([0, 130, null]).toContain(await exited);
    } finally {
      try {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }
  }, 240_000);
});
