import { MemoryBus } from './memory.js';
import { type BusErrorHandler, NatsBus } from './nats.js';
import type { EventBus } from './types.js';

export { backupStream, restoreStream } from './backup.js';
export { JETSTREAM_USAGE, runJetStreamCli } from './backup-cli.js';
export { MemoryBus } from './memory.js';
export { type BusErrorHandler, NatsBus, type NatsBusOptions, natsServers } from './nats.js';
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
}

export async function createBus(config: BusConfig): Promise<EventBus> {
  if (!config.natsUrl) return new MemoryBus(config.onError);
  return NatsBus.connect({
    url: config.natsUrl,
    stream: config.stream,
    name: config.name,
    ...(config.replicas ? { replicas: config.replicas } : {}),
    onError: config.onError,
  });
}
