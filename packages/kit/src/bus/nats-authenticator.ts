import { readFileSync } from 'node:fs';
import {
  type Authenticator,
  credsAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';
import { type NatsCredentials, NatsCredentialsError } from './nats-auth.js';

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

/** The connection options for credentials and a reply prefix, when given. */
export function natsConnectAuth(o: { credentials?: NatsCredentials; inboxPrefix?: string }) {
  return {
    ...(o.credentials ? { authenticator: natsAuthenticator(o.credentials) } : {}),
    ...(o.inboxPrefix ? { inboxPrefix: o.inboxPrefix } : {}),
  };
}
