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

export { answer, call, type RpcHandler } from './rpc.js';
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
  /**
   * A factor over every request's deadline, the callers' own figures and the default alike
   * (`LORE_BUS_TIMEOUT_SCALE`): 1 in production, more on a machine too busy for those figures.
   */
  timeoutScale?: number;
}

export class NatsInsecureError extends Error {
  constructor() {
    super(
      'NATS_URL is set but no NATS credentials are: set NATS_USER and NATS_PASSWORD, NATS_TOKEN, ' +
        'NATS_NKEY_SEED or NATS_CREDS (infra/nats/ has the server configuration), or ' +
        'LORE_NATS_INSECURE=true to connect without authentication to a NATS on loopback',
    );
    this.name = 'NatsInsecureError';
  }
}

/** `LORE_NATS_INSECURE=true` names a NATS that is not on this machine. */
export class NatsInsecureRemoteError extends Error {
  constructor(hosts: string[]) {
    super(
      `LORE_NATS_INSECURE=true connects without authentication only to a NATS on loopback, and NATS_URL names ${hosts.join(', ')}: ` +
        'set NATS credentials (infra/nats/ has the server configuration), or LORE_NATS_INSECURE=i-understand to accept ' +
        'that anyone who reaches that NATS can read every event and request, publish events and answer requests in ' +
        "this node's place",
    );
    this.name = 'NatsInsecureRemoteError';
  }
}

/** The hosts of a NATS URL list that are not loopback addresses or `localhost`. */
function remoteHosts(url: string): string[] {
  return url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => {
      try {
        return new URL(u.includes('://') ? u : `nats://${u}`).hostname.replace(/^\[|\]$/g, '');
      } catch {
        return u;
      }
    })
    .filter((h) => !(h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)));
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
    LORE_NATS_INSECURE?: boolean | 'i-understand';
  },
  warn: (message: string) => void,
): Pick<BusConfig, 'credentials' | 'inboxPrefix' | 'insecure'> {
  if (!config.NATS_URL) return {};
  const credentials = natsCredentialsFrom(config);
  if (!credentials) {
    if (!config.LORE_NATS_INSECURE) throw new NatsInsecureError();
    const remote = remoteHosts(config.NATS_URL);
    if (remote.length && config.LORE_NATS_INSECURE !== 'i-understand')
      throw new NatsInsecureRemoteError(remote);
    warn(
      `LORE_NATS_INSECURE=${config.LORE_NATS_INSECURE === 'i-understand' ? 'i-understand' : 'true'}: connecting to NATS without credentials. ` +
        'Anyone who reaches this NATS can read every event and request of this node, publish events (dropped unless ' +
        "this node's key signed them) and answer or block its requests; the requests that release or read what is " +
        "private (deciding a query, retrieving passages, evaluating the gate, verifying a key) are still refused unless this node's key signed them",
    );
    return { insecure: true };
  }
  const inboxPrefix = natsInboxPrefix(config);
  return { credentials, ...(inboxPrefix ? { inboxPrefix } : {}) };
}

export async function createBus(config: BusConfig): Promise<EventBus> {
  if (!config.natsUrl) return new MemoryBus(config.onError, config.drops, config.timeoutScale);
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
    ...(config.timeoutScale ? { timeoutScale: config.timeoutScale } : {}),
  });
}
