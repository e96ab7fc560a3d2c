/** `@lore/kit/bus`: the event bus (in-process and NATS), typed events and requests, the outbox and its relay. */
export type {
  DeliveryInfo,
  EventBus,
  EventHandler,
  NatsBus,
  RequestHandler,
  RpcHandler,
  SubscribeOptions,
  Subscription,
} from '../bus/index.js';
export {
  answer,
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  call,
  createBus,
  MemoryBus,
  NatsCredentialsError,
  NatsInsecureError,
  NatsInsecureRemoteError,
  natsAccess,
  natsCredentialsFrom,
  subjectMatches,
} from '../bus/index.js';
export {
  CONSOLE_SESSION_MAX_AGE_MS,
  CONSOLE_SESSIONS_BUCKET,
  DIRECTORY_BUCKETS,
  EVENTS_STREAM,
} from '../bus/jetstream-names.js';
export type { NodeLocalBus, NodeRequestOptions } from '../bus/local.js';
export { nodeLocalBus, nodeSubject } from '../bus/local.js';
export type { NatsCredentials } from '../bus/nats-auth.js';
export type { Emit } from '../outbox.js';
export { handleOnce, Outbox } from '../outbox.js';
