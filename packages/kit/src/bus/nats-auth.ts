import { readFileSync } from 'node:fs';
import {
  type Authenticator,
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';

/** How a process proves itself to NATS: one of the forms the client supports. */
export type NatsCredentials =
  | { kind: 'user'; user: string; password: string }
  | { kind: 'token'; token: string }
  | { kind: 'nkey'; seed: string }
  | { kind: 'creds'; file: string };

export interface NatsAuthEnv {
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TOKEN?: string;
  NATS_NKEY_SEED?: string;
  NATS_CREDS?: string;
  NATS_INBOX_PREFIX?: string;
}

export class NatsCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NatsCredentialsError';
  }
}

/** The credentials the environment holds, or undefined when it holds none. Exactly one form may be set. */
export function natsCredentialsFrom(env: NatsAuthEnv): NatsCredentials | undefined {
  const forms: NatsCredentials[] = [];
  if (env.NATS_USER || env.NATS_PASSWORD) {
    if (!env.NATS_USER || !env.NATS_PASSWORD)
      throw new NatsCredentialsError('NATS_USER and NATS_PASSWORD must be set together');
    forms.push({ kind: 'user', user: env.NATS_USER, password: env.NATS_PASSWORD });
  }
  if (env.NATS_TOKEN) forms.push({ kind: 'token', token: env.NATS_TOKEN });
  if (env.NATS_NKEY_SEED) {
    if (!env.NATS_NKEY_SEED.startsWith('SU'))
      throw new NatsCredentialsError('NATS_NKEY_SEED must be a user nkey seed (it starts with SU)');
    forms.push({ kind: 'nkey', seed: env.NATS_NKEY_SEED });
  }
  if (env.NATS_CREDS) forms.push({ kind: 'creds', file: env.NATS_CREDS });
  if (forms.length > 1)
    throw new NatsCredentialsError(
      'set one of NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED or NATS_CREDS, not several',
    );
  return forms[0];
}

/** The client's authenticator for the credentials. A `.creds` file is read on every connect, so it can be rotated in place. */
export function natsAuthenticator(credentials: NatsCredentials): Authenticator {
  switch (credentials.kind) {
    case 'user':
      return usernamePasswordAuthenticator(credentials.user, credentials.password);
    case 'token':
      return tokenAuthenticator(credentials.token);
    case 'nkey':
      return nkeyAuthenticator(new TextEncoder().encode(credentials.seed));
    case 'creds':
      return credsAuthenticator(() => {
        try {
          return readFileSync(credentials.file);
        } catch (err) {
          throw new NatsCredentialsError(
            `NATS_CREDS: cannot read ${credentials.file}: ${(err as Error).message}`,
          );
        }
      });
  }
}

/**
 * The prefix of this connection's reply subjects. NATS permissions give each user its own
 * `_INBOX.<user>.>`, so no other participant can subscribe to the replies it receives.
 */
export function natsInboxPrefix(env: NatsAuthEnv): string | undefined {
  if (env.NATS_INBOX_PREFIX) return env.NATS_INBOX_PREFIX;
  return env.NATS_USER ? `_INBOX.${env.NATS_USER}` : undefined;
}

/** The connection options for credentials and a reply prefix, when given. */
export function natsConnectAuth(o: { credentials?: NatsCredentials; inboxPrefix?: string }) {
  return {
    ...(o.credentials ? { authenticator: natsAuthenticator(o.credentials) } : {}),
    ...(o.inboxPrefix ? { inboxPrefix: o.inboxPrefix } : {}),
  };
}
