import type { EventEnvelope } from '@lore/schema/events';
import type { NatsCredentials } from './nats-auth.js';
import type { EventDrops } from './typed.js';

/** Called when a subscriber's handler fails; `event` is undefined when the message was not a valid envelope. */
export type BusErrorHandler = (err: unknown, event: EventEnvelope | undefined, consumer: string) => void;

export interface NatsBusOptions {
  /** One server, or a cluster's servers separated by commas: the client tries each and reconnects to any. */
  url: string;
  /**
   * Copies JetStream keeps of the stream (and of the KV buckets opened on this connection): 3
   * on a three-server cluster, so the loss of one server loses nothing. Default 1. An existing
   * stream is raised (or lowered) to it.
   */
  replicas?: number;
  /** JetStream stream holding the events. Default `LORE_EVENTS`. */
  stream?: string;
  /** First subject token the stream captures (`<prefix>.>`). Default `lore`; tests use a random one. */
  subjectPrefix?: string;
  /** Connection name, shown by the server's monitoring. */
  name?: string;
  /** How long a re-published event id is recognised as a duplicate. Default 2 minutes. */
  duplicateWindowMs?: number;
  onError?: BusErrorHandler;
  /** Where typed subscriptions count the events they drop. Default: a registry of this bus's own. */
  drops?: EventDrops;
  /** A factor over every request's deadline (`LORE_BUS_TIMEOUT_SCALE`). Default 1. */
  timeoutScale?: number;
  /** How this process authenticates, and its reply prefix (`_INBOX.<user>`, as its permissions allow). */
  credentials?: NatsCredentials;
  inboxPrefix?: string;
  /**
   * Told when the stream's replicas or duplicate window differ from these options and this login
   * may not change them (the operator's provisioning does). Default: a process warning.
   */
  warn?: (message: string) => void;
  /**
   * How long to wait at start for the operator to provision a missing stream that this login may
   * not create (a deployment starts the services and the provisioning Job together). Default 60 s.
   */
  streamWaitMs?: number;
}
