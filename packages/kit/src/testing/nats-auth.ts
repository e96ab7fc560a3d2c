import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoreConfig } from '../config.js';
import { loadNodeIdentity } from '../node.js';

/** The users and permissions every Lore topology ships (rendered by `pnpm nats:config`). */
export const SHIPPED_NATS_AUTH = fileURLToPath(new URL('../../../../infra/nats/auth.conf', import.meta.url));

/**
 * The shipped NATS authorization with a fresh password per user: what a test server needs in
 * its environment, and each process's credentials.
 */
export class NatsAuthFixture {
  /** Passwords start with a letter: nats-server parses the variables' values, and would read digits as a number. */
  readonly passwords: Record<string, string>;

  constructor(readonly configFile = SHIPPED_NATS_AUTH) {
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
