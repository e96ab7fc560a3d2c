import type { EventDefinition, EventEnvelope } from '@lore/schema/events';
import {
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import {
  connect,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription as NatsSubscription,
  headers as natsHeaders,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { toRemote } from './memory.js';
import { natsConnectAuth } from './nats-authenticator.js';
import type { BusErrorHandler, NatsBusOptions } from './nats-options.js';
import { durableName, ensureConsumer, natsServers } from './nats-setup.js';
import { checkEventStream, DUPLICATE_WINDOW_MS, EVENTS_PREFIX, EVENTS_STREAM } from './provision.js';
import {
  EventDrops,
  listenTyped,
  type OnOptions,
  subscribeTyped,
  type TypedEventHandler,
  type TypedListener,
} from './typed.js';
import {
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type EventBus,
  type EventHandler,
  type RequestHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
} from './types.js';

type Reply =
  | { ok: true; value: unknown }
  | { ok: false; error: { message: string; code: number; data?: Record<string, unknown> } };

/**
 * Messages pulled ahead per subscription. Small, so that replicas sharing a consumer share the
 * work instead of one of them buffering the whole backlog.
 */
const PREFETCH = 10;
/**
 * How long one pull waits on the server. The client checks heartbeats at half of it and pulls
 * afresh after two are missed: when a cluster's consumer leader dies, its pull dies with it, and
 * the client's default (30 s) left a subscription idle for up to a minute after the failover.
 */
const PULL_EXPIRES_MS = 5_000;

/** How long closing may wait for the drain of subscriptions and connection. */
const CLOSE_TIMEOUT_MS = 3000;

/**
 * The bus between processes: events go through a JetStream stream (durable, deduplicated on the
 * event id), request/reply and `listen` are plain core NATS.
 */

export class NatsBus implements EventBus {
  readonly kind = 'nats' as const;
  private readonly subscriptions = new Set<Subscription>();
  private closing?: Promise<void>;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subjectPrefix: string,
    private readonly onError: BusErrorHandler,
    /** JetStream replicas for what Lore creates on this connection (the stream, KV buckets). */
    readonly replicas: number,
    readonly drops: EventDrops,
    /** A factor over every request's deadline (`LORE_BUS_TIMEOUT_SCALE`). */
    private readonly timeoutScale = 1,
  ) {}

  on<E extends EventDefinition>(event: E, options: OnOptions, handler: TypedEventHandler<E>) {
    return subscribeTyped(this, event, options, handler, this.drops);
  }

  listenTo<E extends EventDefinition>(event: E, listener: string, handler: TypedListener<E>) {
    return listenTyped(this, event, listener, handler, this.drops);
  }

  /** The underlying connection, for other NATS-backed ports (the network directory's KV). */
  get connection(): NatsConnection {
    return this.nc;
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const stream = options.stream ?? EVENTS_STREAM;
    const subjectPrefix = options.subjectPrefix ?? EVENTS_PREFIX;
    const replicas = options.replicas ?? 1;
    const nc = await connect({
      servers: natsServers(options.url),
      name: options.name,
      ...natsConnectAuth(options),
      // A service outlives NATS restarts: keep reconnecting, `ping` reports the outage meanwhile.
      maxReconnectAttempts: -1,
    });
    try {
      const jsm = await jetstreamManager(nc);
      // The stream belongs to the operator: created here only where this login may (an open NATS).
      await checkEventStream(
        jsm,
        {
          stream,
          subjectPrefix,
          replicas,
          duplicateWindowMs: options.duplicateWindowMs ?? DUPLICATE_WINDOW_MS,
        },
        options.warn ?? ((m) => process.emitWarning(m, 'LoreJetStream')),
        options.streamWaitMs ?? 60_000,
      );
      return new NatsBus(
        nc,
        jetstream(nc),
        jsm,
        stream,
        subjectPrefix,
        options.onError ?? (() => {}),
        replicas,
        options.drops ?? new EventDrops(),
        options.timeoutScale ?? 1,
      );
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async publish(event: EventEnvelope): Promise<void> {
    // Outside the stream JetStream has no responder, and the client reports that as "jetstream is not enabled".
    if (!event.subject.startsWith(`${this.subjectPrefix}.`)) {
      throw new Error(`event subject ${event.subject} is outside the stream's ${this.subjectPrefix}.>`);
    }
    const h = natsHeaders();
    if (event.traceparent) h.set('traceparent', event.traceparent);
    // msgID becomes the Nats-Msg-Id header: the stream stores a re-published event once.
    await this.js.publish(event.subject, JSON.stringify(event), { msgID: event.id, headers: h });
  }

  async subscribe(options: SubscribeOptions, handler: EventHandler): Promise<Subscription> {
    const durable = durableName(options.consumer);
    const maxDeliver = options.maxDeliver ?? 5;
    await ensureConsumer(this.jsm, this.stream, durable, options.subjects, maxDeliver);
    const consumer = await this.js.consumers.get(this.stream, durable);
    const messages: ConsumerMessages = await consumer.consume({
      max_messages: PREFETCH,
      expires: PULL_EXPIRES_MS,
    });
    let closing = false;
    // One message at a time per subscription: handlers stay simple, and PREFETCH bounds what this process holds.
    const loop = (async () => {
      try {
        for await (const msg of messages) {
          // Messages already pulled when we close go straight back, rather than waiting out ack_wait.
          if (closing) msg.nak();
          else await this.handle(msg, options, maxDeliver, handler);
        }
      } catch (err) {
        this.onError(err, undefined, options.consumer);
      }
    })();
    const sub: Subscription = {
      close: async () => {
        if (closing) return;
        closing = true;
        this.subscriptions.delete(sub);
        await messages.close();
        await loop;
      },
    };
    this.subscriptions.add(sub);
    return sub;
  }

  async listen(subject: string, handler: (event: EventEnvelope) => void): Promise<Subscription> {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          handler(msg.json<EventEnvelope>());
        } catch {
          // a listener's failure is its own business
        }
      },
    });
    return this.track(sub);
  }

  async request(subject: string, payload: unknown, options: RequestOptions = {}): Promise<unknown> {
    const timeoutMs = Math.round((options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) * this.timeoutScale);
    const h = natsHeaders();
    for (const [k, v] of Object.entries(options.headers ?? {})) h.set(k, v);
    let msg: Msg;
    try {
      msg = await this.nc.request(subject, encode(payload), { timeout: timeoutMs, headers: h });
    } catch (err) {
      if (err instanceof TimeoutError) throw new BusTimeoutError(subject, timeoutMs);
      if (err instanceof RequestError && err.isNoResponders()) throw new BusNoResponderError(subject);
      throw err;
    }
    const reply = msg.json<Reply>();
    if (reply.ok) return reply.value;
    throw new BusRemoteError(reply.error.message, reply.error.code, reply.error.data);
  }

  async reply(subject: string, handler: RequestHandler): Promise<Subscription> {
    // The subject doubles as the queue group: each request goes to one replica.
    const sub = this.nc.subscribe(subject, {
      queue: subject,
      callback: (err, msg) => {
        if (!err) void this.answer(msg, handler);
      },
    });
    return this.track(sub);
  }

  async ping(): Promise<void> {
    // rtt throws at once while disconnected, where a bare flush would wait for the reconnect.
    await this.nc.rtt();
  }

  /**
   * Drains the subscriptions and the connection (what is in flight, acks and replies, is
   * delivered), within `CLOSE_TIMEOUT_MS`: with the server gone, a drain waits for a reconnect
   * that may never come, so past the bound the connection is closed as it is.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const drained = (async () => {
        await Promise.all([...this.subscriptions].map((s) => s.close()));
        if (!this.nc.isClosed()) await this.nc.drain();
      })().then(
        () => true,
        () => false,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((r) => {
        timer = setTimeout(() => r(false), CLOSE_TIMEOUT_MS);
      });
      const clean = await Promise.race([drained, late]);
      clearTimeout(timer);
      if (!clean && !this.nc.isClosed()) await this.nc.close();
    })();
    return this.closing;
  }

  private async handle(msg: JsMsg, options: SubscribeOptions, maxDeliver: number, handler: EventHandler) {
    const attempt = msg.info.deliveryCount;
    let event: EventEnvelope | undefined;
    try {
      event = msg.json<EventEnvelope>();
      await handler(event, { attempt });
      msg.ack();
    } catch (err) {
      this.onError(err, event, options.consumer);
      // An unreadable message will never succeed; a failing one gets maxDeliver attempts.
      if (!event || attempt >= maxDeliver)
        msg.term(event ? 'max deliveries reached' : 'not an event envelope');
      else msg.nak(options.redeliveryDelayMs ?? 200);
    }
  }

  private async answer(msg: Msg, handler: RequestHandler) {
    let body: string;
    try {
      const payload = msg.data.length > 0 ? msg.json<unknown>() : undefined;
      const value = await handler(payload, headerRecord(msg.headers));
      body = JSON.stringify({ ok: true, value } satisfies Reply);
    } catch (err) {
      // toRemote keeps message/code/data of errors with a numeric code and hides everything else.
      const e = toRemote(err);
      body = JSON.stringify({
        ok: false,
        error: { message: e.message, code: e.code, data: e.data },
      } satisfies Reply);
    }
    msg.respond(body);
  }

  private async track(sub: NatsSubscription): Promise<Subscription> {
    // Make sure the server knows the subscription before the caller relies on it.
    await this.nc.flush();
    return {
      close: async () => {
        if (!sub.isClosed() && !this.nc.isClosed()) await sub.drain();
      },
    };
  }
}

function encode(payload: unknown): string {
  return payload === undefined ? '' : JSON.stringify(payload);
}

function headerRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, values] of h ?? []) out[k] = values[0] ?? '';
  return out;
}

export type { BusErrorHandler, NatsBusOptions };
export { durableName, natsServers };
