import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoreConfig } from '../config.js';
import { loadNodeIdentity } from '../node.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Lore's NATS users and permissions for the nodes `nodes`, as `pnpm nats:config --nodes` renders
 * them (infra/nats/generate.ts, run as that command: the kit cannot import the infra scripts).
 * Each service may touch exactly its own durable consumers of those nodes. Returns the file.
 */
export function renderNatsAuth(nodes: readonly string[], dir?: string): string {
  if (!nodes.length) throw new Error('renderNatsAuth: give the node ids the test server serves');
  const text = execFileSync(
    join(ROOT, 'node_modules/.bin/tsx'),
    [join(ROOT, 'infra/nats/generate.ts'), '--nodes', nodes.join(',')],
    { encoding: 'utf8' },
  );
  const file = join(dir ?? mkdtempSync(join(tmpdir(), 'lore-nats-auth-')), `auth-${nodes.join(',')}.conf`);
  if (dir) mkdirSync(dir, { recursive: true });
  writeFileSync(file, text);
  return file;
}

/**
 * Lore's NATS authorization with a fresh password per user: what a test server needs in its
 * environment, and each process's credentials. The configuration is rendered for the node ids
 * the test's processes use (`{ nodes }`, written under `dir` or a temporary folder), as every
 * topology Lore ships renders it, or given as a file (a variation a test made).
 */
export class NatsAuthFixture {
  /** Passwords start with a letter: nats-server parses the variables' values, and would read digits as a number. */
  readonly passwords: Record<string, string>;
  /** The auth.conf the server includes. */
  readonly configFile: string;

  constructor(config: string | { nodes: readonly string[]; dir?: string }) {
    this.configFile = typeof config === 'string' ? config : renderNatsAuth(config.nodes, config.dir);
    const configFile = this.configFile;
    const users = [...readFileSync(configFile, 'utf8').matchAll(/user: "([^"]+)"/g)].map((m) => m[1]!);
    this.passwords = Object.fromEntries(users.map((u) => [u, `pw${randomBytes(12).toString('hex')}`]));
  }

  get users(): string[] {
    return Object.keys(this.passwords);
  }

  /** The variables nats-server resolves the passwords from. */
  get serverEnv(): Record<string, string> {
    return Object.fromEntries(
      Object.entries(this.passwords).map(([u, p]) => [`LORE_NATS_PASSWORD_${u.toUpperCase()}`, p]),
    );
  }

  /** A Lore process's environment for connecting as `user` (a service name, or `node` for a whole node). */
  env(user: string): { NATS_USER: string; NATS_PASSWORD: string } {
    const password = this.passwords[user];
    if (!password) throw new Error(`the NATS configuration has no user ${user}`);
    return { NATS_USER: user, NATS_PASSWORD: password };
  }

  /** Client options for the NATS library: credentials and the user's own reply inbox. */
  client(user: string): { user: string; pass: string; inboxPrefix: string } {
    const { NATS_USER, NATS_PASSWORD } = this.env(user);
    return { user: NATS_USER, pass: NATS_PASSWORD, inboxPrefix: `_INBOX.${user}` };
  }
}

/** A node's identity file (node.json) under `dir`, made once: what every process of that node shares. */
export function nodeIdentityFile(dir: string, nodeId: string): string {
  loadNodeIdentity({ LORE_DATA_DIR: dir, LORE_NODE_ID: nodeId } as LoreConfig);
  return join(dir, 'node.json');
}

/** Puts the node's identity into a process's data directory (as a mounted Secret does); returns the directory. */
export function shareNodeIdentity(identityFile: string, dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  copyFileSync(identityFile, join(dataDir, 'node.json'));
  return dataDir;
}
