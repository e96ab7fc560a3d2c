import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { renderAuth, renderServer } from '../infra/nats/generate.js';
import { NATS_USERS, passwordVariable } from '../infra/nats/permissions.js';

/** The NATS server `pnpm dev` runs for the distributed mode. */

export function natsUp(url: string): Promise<boolean> {
  const u = new URL(url.replace(/^nats:/, 'http:'));
  return new Promise((done) => {
    const socket = connect({ host: u.hostname, port: Number(u.port || 4222) });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

const NATS_BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) =>
  existsSync(p),
);

/** One password per NATS user, made once (they start with a letter: nats-server parses the values). */
export function natsPasswords(file: string): Record<string, string> {
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const all = Object.fromEntries(
    NATS_USERS.map((u) => [u, saved[u] ?? `pw${randomBytes(16).toString('hex')}`]),
  );
  writeFileSync(file, JSON.stringify(all, null, 2), { mode: 0o600 });
  return all;
}

/** A nats-server with the shipped configuration, unless one already answers on the port. */
export async function startNats(
  port: number,
  dataRoot: string,
  passwords: Record<string, string>,
  nodeId: string,
) {
  const url = `nats://127.0.0.1:${port}`;
  if (await natsUp(url)) return { url, child: undefined };
  if (!NATS_BIN) throw new Error('nats-server is not installed (or set NATS_URL to a running one)');
  const env = Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), passwords[u]!]));
  // Lore's configuration, rendered for this node: each service is allowed exactly its own
  // durable consumers of it (consumer names end with the node id; no generic auth.conf exists).
  const confDir = join(dataRoot, 'nats-conf');
  mkdirSync(confDir, { recursive: true });
  writeFileSync(join(confDir, 'nats-server.conf'), renderServer());
  writeFileSync(join(confDir, 'auth.conf'), renderAuth([nodeId]));
  const child = spawn(
    NATS_BIN,
    ['-c', join(confDir, 'nats-server.conf'), '-a', '127.0.0.1', '-p', String(port)].concat([
      '-sd',
      join(dataRoot, 'nats'),
    ]),
    { env: { ...process.env, ...env }, stdio: 'ignore', detached: true },
  );
  for (let i = 0; i < 100 && !(await natsUp(url)); i++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child };
}
