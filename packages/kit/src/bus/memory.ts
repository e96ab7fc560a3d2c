import type { EventDefinition, EventEnvelope } from '@lore/schema/events';
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
  subjectMatches,
} from './types.js';

interface Group {
  options: SubscribeOptions;
  handlers: EventHandler[];
  next: number;
  /** Events that arrived while no process of this consumer was subscribed. */
  backlog: EventEnvelope[];
}

const DEDUPE_WINDOW = 20_000;

/**
 * The embedded bus: every service in one process. Delivery is asynchronous but `publish`
 * waits for the first attempt of every consumer, so an outbox relay marks an event sent only
 * once it has been handled (or has failed and is queued for redelivery).
 */
export class MemoryBus implements EventBus {
  readonly kind = 'memory' as const;
  private readonly groups = new Map<string, Group>();
  private readonly listeners = new Set<{ subject: string; fn: (e: EventEnvelope) => void }>();
  private readonly responders = new Map<string, RequestHandler[]>();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly onError: (err: unknown, event: EventEnvelope, consumer: string) => void = () => {},
    readonly drops: EventDrops = new EventDrops(),
    /** A factor over every request's deadline (`LORE_BUS_TIMEOUT_SCALE`). */
    private readonly timeoutScale = 1,
  ) {}

  on<E extends EventDefinition>(event: E, options: OnOptions, handler: TypedEventHandler<E>) {
    return subscribeTyped(this, event, options, handler, this.drops);
  }

  listenTo<E extends EventDefinition>(event: E, listener: string, handler: TypedListener<E>) {
    return listenTyped(this, event, listener, handler, this.drops);
  }

  async publish(event: EventEnvelope): Promise<void> {
    this.assertOpen();
    if (this.seen.has(event.id)) return;
    this.remember(event.id);
    const copy = structuredClone(event);
    for (const l of this.listeners) if (subjectMatches(l.subject, copy.subject)) safe(() => l.fn(copy));
    const deliveries: Promise<void>[] = [];
    for (const group of this.groups.values()) {
      if (!group.options.subjects.some((s) => subjectMatches(s, copy.subject))) continue;
      if (group.handlers.length === 0) group.backlog.push(copy);
      else deliveries.push(this.deliver(group, copy, 1));
    }
    await Promise.all(deliveries);
  }

  async subscribe(options: SubscribeOptions, handler: EventHandler): Promise<Subscription> {
    this.assertOpen();
    let group = this.groups.get(options.consumer);
    if (!group) {
      group = { options, handlers: [], next: 0, backlog: [] };
      this.groups.set(options.consumer, group);
    }
    const g = group;
    g.handlers.push(handler);
    const backlog = g.backlog.splice(0);
    for (const e of backlog) void this.deliver(g, e, 1);
    return {
      close: async () => {
        const i = g.handlers.indexOf(handler);
        if (i >= 0) g.handlers.splice(i, 1);
      },
    };
  }

  async listen(subject: string, fn: (e: EventEnvelope) => void): Promise<Subscription> {
    const entry = { subject, fn };
    this.listeners.add(entry);
    return { close: async () => void this.listeners.delete(entry) };
  }

  async request(subject: string, payload: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.assertOpen();
    const timeoutMs = Math.round((options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) * this.timeoutScale);
    const handlers = this.responders.get(subject);
    if (!handlers || handlers.length === 0) throw new BusNoResponderError(subject);
    const handler = handlers[Math.floor(Math.random() * handlers.length)]!;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BusTimeoutError(subject, timeoutMs)), timeoutMs);
    });
    try {
      const answer = await Promise.race([
        handler(structuredClone(payload), { ...options.headers }).catch((err: unknown) => {
          throw toRemote(err);
        }),
        timeout,
      ]);
      return answer === undefined ? undefined : structuredClone(answer);
    } finally {
      clearTimeout(timer);
    }
  }

  async reply(subject: string, handler: RequestHandler): Promise<Subscription> {
    const list = this.responders.get(subject) ?? [];
    list.push(handler);
    this.responders.set(subject, list);
    return {
      close: async () => {
        const i = list.indexOf(handler);
        if (i >= 0) list.splice(i, 1);
      },
    };
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.groups.clear();
    this.listeners.clear();
    this.responders.clear();
  }

  private async deliver(group: Group, event: EventEnvelope, attempt: number): Promise<void> {
    if (this.closed) return;
    if (group.handlers.length === 0) {
      group.backlog.push(event);
      return;
    }
    const handler = group.handlers[group.next++ % group.handlers.length]!;
    try {
      await handler(event, { attempt });
    } catch (err) {
      this.onError(err, event, group.options.consumer);
      if (attempt >= (group.options.maxDeliver ?? 5)) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        void this.deliver(group, event, attempt + 1);
      }, group.options.redeliveryDelayMs ?? 200);
      this.timers.add(t);
    }
  }

  private remember(id: string) {
    this.seen.add(id);
    this.seenOrder.push(id);
    if (this.seenOrder.length > DEDUPE_WINDOW) this.seen.delete(this.seenOrder.shift()!);
  }

  private assertOpen() {
    if (this.closed) throw new Error('bus is closed');
  }
}

function safe(fn: () => void) {
  try {
    fn();
  } catch {
    // a listener's failure is its own business
  }
}

function toRemote(err: unknown): BusRemoteError {
  if (err instanceof BusRemoteError) return err;
  const e = err as { message?: string; code?: unknown; data?: Record<string, unknown> };
  const code = typeof e?.code === 'number' ? e.code : 500;
  return new BusRemoteError(code === 500 ? 'internal error' : String(e?.message ?? 'error'), code, e?.data);
}

export { toRemote };
