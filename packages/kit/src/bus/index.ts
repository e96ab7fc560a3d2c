import { MemoryBus } from './memory.js';
import type { BusErrorHandler } from './nats.js';
import { type NatsCredentials, natsCredentialsFrom, natsInboxPrefix } from './nats-auth.js';
import type { EventDrops } from './typed.js';
import type { EventBus } from './types.js';

export { MemoryBus } from './memory.js';
// The NATS client itself is loaded only when a bus connects to NATS (see `createBus`): the
// classes and functions that need it are in `@lore/kit/nats`; here only their types.
export type { BusErrorHandler, NatsBus, NatsBusOptions } from './nats.js';
export {
  type NatsAuthEnv,
  type NatsCredentials,
  NatsCredentialsError,
  natsCredentialsFrom,
  natsInboxPrefix,
} from './nats-auth.js';

export {
  type DroppedEvent,
  EventDrops,
  listenTyped,
  type OnOptions,
  subscribeTyped,
  type TypedEventHandler,
  type TypedListener,
  typedHandler,
} from './typed.js';
export {
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  type DeliveryInfo,
  type EventBus,
  type EventHandler,
  type RequestHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
  subjectMatches,
} from './types.js';

export interface BusConfig {
  /** With a URL the services talk over NATS; without one they share an in-process bus. */
  natsUrl?: string;
  /** JetStream stream name (NATS only). */
  stream?: string;
  /** Connection name (NATS only). */
  name?: string;
  /** JetStream replicas of the stream and KV buckets (NATS only; 3 on a three-server cluster). */
  replicas?: number;
  onError?: BusErrorHandler;
  /** NATS credentials (see {@link natsAccess}). */
  credentials?: NatsCredentials;
  inboxPrefix?: string;
  /** Connect without credentials (`LORE_NATS_INSECURE=true`); otherwise a NATS URL needs credentials. */
  insecure?: boolean;
  /** Where typed subscriptions count dropped events. */
  drops?: EventDrops;
}

export class NatsInsecureError extends Error {
  constructor() {
    super(
      'NATS_URL is set but no NATS credentials are: set NATS_USER and NATS_PASSWORD, NATS_TOKEN, ' +
        'NATS_NKEY_SEED or NATS_CREDS (infra/nats/ has the server configuration), or ' +
        'LORE_NATS_INSECURE=true to connect without authentication',
    );
    this.name = 'NatsInsecureError';
  }
}

/**
 * The NATS part of a bus configuration, from the environment: credentials and reply prefix,
 * or the explicit choice to run without them. `warn` hears about that choice.
 */
export function natsAccess(
  config: {
    NATS_URL?: string;
    NATS_USER?: string;
    NATS_PASSWORD?: string;
    NATS_TOKEN?: string;
    NATS_NKEY_SEED?: string;
    NATS_CREDS?: string;
    NATS_INBOX_PREFIX?: string;
    LORE_NATS_INSECURE?: boolean;
  },
  warn: (message: string) => void,
): Pick<BusConfig, 'credentials' | 'inboxPrefix' | 'insecure'> {
  if (!config.NATS_URL) return {};
  const credentials = natsCredentialsFrom(config);
  if (!credentials) {
    if (!config.LORE_NATS_INSECURE) throw new NatsInsecureError();
    warn(
      'LORE_NATS_INSECURE=true: connecting to NATS without credentials; anyone who reaches NATS can impersonate this node',
    );
    return { insecure: true };
  }
  const inboxPrefix = natsInboxPrefix(config);
  return { credentials, ...(inboxPrefix ? { inboxPrefix } : {}) };
}

export async function createBus(config: BusConfig): Promise<EventBus> {
  if (!config.natsUrl) return new MemoryBus(config.onError, config.drops);
  if (!config.credentials && !config.insecure) throw new NatsInsecureError();
  const { NatsBus } = await import('./nats.js');
  return NatsBus.connect({
    ...(config.credentials ? { credentials: config.credentials } : {}),
    ...(config.inboxPrefix ? { inboxPrefix: config.inboxPrefix } : {}),
    url: config.natsUrl,
    stream: config.stream,
    name: config.name,
    ...(config.replicas ? { replicas: config.replicas } : {}),
    onError: config.onError,
    ...(config.drops ? { drops: config.drops } : {}),
  });
}
