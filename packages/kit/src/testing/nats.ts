import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import type { NatsAuthFixture } from './nats-auth.js';

/**
 * The NATS the tests use: the one `NATS_URL` names, or the private server the tiers' global setup
 * (tools/vitest-nats.ts) started and named there. Empty when neither: never a guess such as
 * 127.0.0.1:4222, which may be somebody else's server.
 */
export const NATS_URL = process.env.NATS_URL ?? '';

/** Whether something accepts TCP connections at a nats:// URL (never, for no URL). */
export function reachable(url: string, timeoutMs = 500): Promise<boolean> {
  if (!url) return Promise.resolve(false);
  const u = new URL(url.replace(/^nats:/, 'http:'));
  return new Promise((resolve) => {
    const socket = createConnection({ host: u.hostname, port: Number(u.port || 4222) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether NATS tests run: under CI a missing server is a failure (the caller's suite throws),
 * elsewhere the tests are skipped with a note.
 */
export async function natsAvailable(): Promise<boolean> {
  const up = await reachable(NATS_URL);
  if (!up && process.env.CI)
    throw new Error(
      `NATS is required under CI but nothing answers at ${NATS_URL || '(NATS_URL is not set)'}`,
    );
  return up;
}

const NATS_BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) =>
  existsSync(p),
);

/** A private nats-server with JetStream, for tests that stop and restart the server. */
export class NatsServerProcess {
  private child: ChildProcess | undefined;
  private log = '';

  /**
   * `auth`: the shipped users and permissions (see {@link NatsAuthFixture}); without it the
   * server lets anyone in.
   */
  constructor(
    readonly port: number,
    readonly storeDir: string,
    readonly auth?: NatsAuthFixture,
  ) {}

  /** What the server printed last (permission violations among it). */
  get output(): string {
    return this.log;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static binaryAvailable(): boolean {
    return NATS_BIN !== undefined;
  }

  static binaryPath(): string | undefined {
    return NATS_BIN;
  }

  async start(): Promise<void> {
    if (!NATS_BIN) throw new Error('nats-server is not installed');
    const args = ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir];
    if (this.auth) args.unshift('-c', this.auth.configFile);
    const child = spawn(NATS_BIN, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(this.auth?.serverEnv ?? {}) },
    });
    this.child = child;
    const keep = (d: Buffer) => {
      this.log = (this.log + d.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) throw new Error(`nats-server exited:\n${this.log}`);
      if (await reachable(this.url, 200)) {
        // With the shipped users, the operator sets JetStream up before any service starts, as a
        // deployment does (services may not create or change the stream).
        if (this.auth) await provisionAsOps(this.url, this.auth);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not start on ${this.port}`);
  }

  /** SIGKILL: the server dies mid-stream, as in a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }
}

/**
 * `lore jetstream provision` as the `ops` user of `auth`: Lore's event stream and buckets with
 * `replicas` copies. Returns what it did.
 */
export async function provisionAsOps(
  url: string,
  auth: NatsAuthFixture,
  options: { replicas?: number; stream?: string; subjectPrefix?: string } = {},
): Promise<string[]> {
  const [{ connect }, { provisionJetStream }, { natsServers }] = await Promise.all([
    import('@nats-io/transport-node'),
    import('../bus/provision.js'),
    import('../bus/nats-setup.js'),
  ]);
  const nc = await connect({ servers: natsServers(url), ...auth.client('ops'), maxReconnectAttempts: 5 });
  try {
    return await provisionJetStream(nc, options);
  } finally {
    await nc.close();
  }
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
