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

/**
 * The prefix of this connection's reply subjects. NATS permissions give each user its own
 * `_INBOX.<user>.>`, so no other participant can subscribe to the replies it receives.
 */
export function natsInboxPrefix(env: NatsAuthEnv): string | undefined {
  if (env.NATS_INBOX_PREFIX) return env.NATS_INBOX_PREFIX;
  return env.NATS_USER ? `_INBOX.${env.NATS_USER}` : undefined;
}
