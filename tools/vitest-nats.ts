/**
 * Vitest global setup of every tier: the NATS the tests use. With `NATS_URL` set, that server
 * (the caller named it). Without it, a private nats-server with JetStream on a free loopback
 * port, its store in a temporary folder, stopped when the run ends: nothing is written into a
 * server nobody named (a NATS on 127.0.0.1:4222 that belongs to something else is left alone).
 * The server runs the shipped configuration (infra/nats/nats-server.conf: loopback, JetStream)
 * without its `auth.conf`, since most NATS tests connect as anonymous clients; the tests of the
 * shipped users and permissions render and start their own (NatsAuthFixture). Without the
 * nats-server binary the NATS tests skip (and fail under CI), as before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NATS_BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) =>
  existsSync(p),
);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.NATS_URL) return undefined;
  if (!NATS_BIN) return undefined;
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), 'lore-test-nats-'));
  let log = '';
  const child: ChildProcess = spawn(NATS_BIN, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const s of [child.stdout, child.stderr]) s?.on('data', (d) => (log = (log + d).slice(-4000)));
  for (let i = 0; !(await answers(port)); i++) {
    if (child.exitCode !== null || i > 200) {
      child.kill('SIGKILL');
      throw new Error(`the tests' nats-server did not start on ${port}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // The test workers start after this and inherit it.
  process.env.NATS_URL = `nats://127.0.0.1:${port}`;
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    delete process.env.NATS_URL;
    rmSync(store, { recursive: true, force: true });
  };
}
