import type { EventDefinition, EventEnvelope } from '@lore/schema/events';
import type { EventDrops, OnOptions, TypedEventHandler, TypedListener } from './typed.js';

/** What a handler receives besides the event: how many times it was delivered. */
export interface DeliveryInfo {
  /** 1 on first delivery, more on redelivery after a failed attempt or a crash. */
  attempt: number;
}

export type EventHandler = (event: EventEnvelope, info: DeliveryInfo) => Promise<void>;

export interface SubscribeOptions {
  /**
   * Durable consumer name. Every process that subscribes with the same name shares the
   * stream of events (each event is handled by one of them, once it succeeds); a different
   * name sees every event again. The position survives restarts.
   */
  consumer: string;
  /** Event subjects (`lore.<service>.<entity>.<verb>`), wildcards allowed (`lore.users.>`). */
  subjects: string[];
  /** Attempts before an event is given up on and logged. Default 5. */
  maxDeliver?: number;
  /** Wait before redelivering a failed event. Default 200 ms. */
  redeliveryDelayMs?: number;
}

/** A live subscription; `close` stops delivery to this process but keeps a durable position. */
export interface Subscription {
  close(): Promise<void>;
}

export type RequestHandler = (payload: unknown, headers: Record<string, string>) => Promise<unknown>;

/** A request's deadline when its caller names none, before the bus's `timeoutScale`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

export interface RequestOptions {
  /** How long to wait for the answer (default `DEFAULT_REQUEST_TIMEOUT_MS`), times the bus's `timeoutScale`. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/**
 * The one port services use to talk to each other. Events are at-least-once and durable;
 * request/reply is for questions that need an answer now (key verification, lookups).
 */
export interface EventBus {
  readonly kind: 'memory' | 'nats';
  /** Publish an event. Resolves once the bus has accepted it (persisted, for NATS). */
  publish(event: EventEnvelope): Promise<void>;
  /** Durable, at-least-once subscription shared by every process using the same consumer name. */
  subscribe(options: SubscribeOptions, handler: EventHandler): Promise<Subscription>;
  /**
   * Durable subscription to one event: the handler gets the payload parsed with the event's
   * schema. A payload that fails it is counted in {@link drops}, logged and acknowledged.
   */
  on<E extends EventDefinition>(
    event: E,
    options: OnOptions,
    handler: TypedEventHandler<E>,
  ): Promise<Subscription>;
  /** Events this bus's typed subscriptions dropped (`lore_events_dropped_total`). */
  readonly drops: EventDrops;
  /**
   * Every process receives every matching event, best effort, while it is connected: for
   * cache invalidation and similar per-process reactions.
   */
  listen(subject: string, handler: (event: EventEnvelope) => void): Promise<Subscription>;
  /**
   * `listen` to one event with the payload parsed once with the event's schema. A payload that
   * fails it is counted in {@link drops} under `listener` (as `consumer`), logged and skipped.
   */
  listenTo<E extends EventDefinition>(
    event: E,
    listener: string,
    handler: TypedListener<E>,
  ): Promise<Subscription>;
  /** Ask a question and wait for one answer. Rejects with `BusTimeoutError` or `BusNoResponderError`. */
  request(subject: string, payload: unknown, options?: RequestOptions): Promise<unknown>;
  /** Answer questions on a subject; replicas share the load (queue group). */
  reply(subject: string, handler: RequestHandler): Promise<Subscription>;
  /** Throws when the bus cannot be reached (for readiness checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class BusTimeoutError extends Error {
  constructor(subject: string, ms: number) {
    super(`no answer on ${subject} within ${ms} ms`);
    this.name = 'BusTimeoutError';
  }
}

export class BusNoResponderError extends Error {
  constructor(subject: string) {
    super(`nothing answers on ${subject}`);
    this.name = 'BusNoResponderError';
  }
}

/** A handler answered with an error; the message crosses the bus, the stack does not. */
export class BusRemoteError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'BusRemoteError';
  }
}

/** Subject matching with NATS semantics: `*` is one token, `>` the rest. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}
