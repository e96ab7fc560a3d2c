import type { EventDefinition, EventEnvelope, EventPayload } from '@lore/schema/events';
import { Counter, Registry } from '../prometheus.js';
import type { DeliveryInfo, EventBus, EventHandler, SubscribeOptions, Subscription } from './types.js';

/** A handler of one kind of event: the payload parsed with the event's schema, and its envelope. */
export type TypedEventHandler<E extends EventDefinition> = (
  payload: EventPayload<E>,
  event: EventEnvelope<EventPayload<E>>,
  info: DeliveryInfo,
) => Promise<void>;

/** A per-process listener of one kind of event (see `EventBus.listenTo`). */
export type TypedListener<E extends EventDefinition> = (
  payload: EventPayload<E>,
  event: EventEnvelope<EventPayload<E>>,
) => void;

/** The durable consumer name, or the subscription's options without subjects (the event gives them). */
export type OnOptions = string | Omit<SubscribeOptions, 'subjects'>;

/** An event a consumer gave up on before its handler ran. */
export interface DroppedEvent {
  /** The event's subject (`lore.<service>.<entity>.<verb>`). */
  event: string;
  consumer: string;
  /** Metric label: `invalid_payload` when the payload fails the event's schema. */
  reason: string;
  /** What was wrong, for the log (the first schema issue, with its path). */
  detail: string;
  envelope: EventEnvelope;
}

/**
 * Events dropped before they reached a handler, counted in `lore_events_dropped_total{event,
 * consumer,reason}` and logged once each with the event id. A dropped event is acknowledged:
 * it would fail the same way on every redelivery.
 */
export class EventDrops {
  readonly counter: Counter<'event' | 'consumer' | 'reason'>;

  constructor(
    readonly registry: Registry = new Registry(),
    private readonly warn: (fields: Record<string, unknown>, message: string) => void = () => {},
  ) {
    this.counter = new Counter({
      name: 'lore_events_dropped_total',
      help: 'Events a consumer dropped before handling them (acknowledged, not redelivered), by reason.',
      labelNames: ['event', 'consumer', 'reason'],
      registers: [registry],
    });
  }

  record(drop: DroppedEvent): void {
    this.counter.inc({ event: drop.event, consumer: drop.consumer, reason: drop.reason });
    this.warn(
      {
        eventId: drop.envelope.id,
        subject: drop.envelope.subject,
        consumer: drop.consumer,
        reason: drop.reason,
        detail: drop.detail,
      },
      'event dropped',
    );
  }

  /** How many events of `event` the consumer dropped for `reason` (for tests and checks). */
  async count(labels: { event: string; consumer: string; reason?: string }): Promise<number> {
    const { values } = await this.counter.get();
    return values
      .filter(
        (v) =>
          v.labels.event === labels.event &&
          v.labels.consumer === labels.consumer &&
          (labels.reason === undefined || v.labels.reason === labels.reason),
      )
      .reduce((n, v) => n + v.value, 0);
  }
}

/** The first schema issue, with its path under `root`: `payload.agentId: Invalid input: expected string`. */
export function firstIssue(
  error: { issues: { path: PropertyKey[]; message: string }[] },
  root = 'payload',
): string {
  const issue = error.issues[0];
  if (!issue) return `invalid ${root}`;
  const path = [root, ...issue.path.map(String)].join('.');
  return `${path}: ${issue.message}`;
}

/** The payload parsed with the event's schema, or undefined once a failing one is dropped (counted, logged). */
function parseOrDrop<E extends EventDefinition>(
  def: E,
  consumer: string,
  envelope: EventEnvelope,
  drops: Pick<EventDrops, 'record'>,
): EventPayload<E> | undefined {
  const parsed = def.payload.safeParse(envelope.payload);
  if (parsed.success) return parsed.data as EventPayload<E>;
  drops.record({
    event: def.subject,
    consumer,
    reason: 'invalid_payload',
    detail: firstIssue(parsed.error),
    envelope,
  });
  return undefined;
}

/** Wraps a typed handler: parses the payload once, drops (counted, logged, acknowledged) what fails. */
export function typedHandler<E extends EventDefinition>(
  def: E,
  consumer: string,
  handler: TypedEventHandler<E>,
  drops: Pick<EventDrops, 'record'>,
): EventHandler {
  return async (envelope, info) => {
    const payload = parseOrDrop(def, consumer, envelope, drops);
    if (payload !== undefined) await handler(payload, { ...envelope, payload }, info);
  };
}

/** `bus.on`, for any bus: a durable subscription to one event with a typed handler. */
export function subscribeTyped<E extends EventDefinition>(
  bus: Pick<EventBus, 'subscribe'>,
  def: E,
  options: OnOptions,
  handler: TypedEventHandler<E>,
  drops: Pick<EventDrops, 'record'>,
): Promise<Subscription> {
  const opts = typeof options === 'string' ? { consumer: options } : options;
  return bus.subscribe(
    { ...opts, subjects: [def.subject] },
    typedHandler(def, opts.consumer, handler, drops),
  );
}

/** `bus.listenTo`, for any bus: `listen` to one event with its payload parsed once, drops counted. */
export function listenTyped<E extends EventDefinition>(
  bus: Pick<EventBus, 'listen'>,
  def: E,
  listener: string,
  handler: TypedListener<E>,
  drops: Pick<EventDrops, 'record'>,
): Promise<Subscription> {
  return bus.listen(def.subject, (envelope) => {
    const payload = parseOrDrop(def, listener, envelope, drops);
    if (payload !== undefined) handler(payload, { ...envelope, payload });
  });
}
