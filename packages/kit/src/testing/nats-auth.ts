import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

  /** The `include` line a cluster's server files add (see NatsCluster's `auth`). */
  get include(): string {
    return `include ${JSON.stringify(this.configFile)}`;
  }
}
