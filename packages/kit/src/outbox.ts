import { randomUUID } from 'node:crypto';
import type { EventDefinition, EventEnvelope } from '@lore/schema/events';
import { and, asc, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { EventBus } from './bus/types.js';
import { type Database, inbox, outbox, type Transaction } from './db/index.js';
import type { Logger } from './logger.js';
import type { EnvelopeSigner } from './network/signing.js';
import { callContext } from './telemetry.js';

export type Emit = <E extends EventDefinition>(def: E, payload: z.input<E['payload']>) => EventEnvelope;

/**
 * Writes a service's rows and the events they cause in one transaction, and relays the
 * events to the bus afterwards. The event id is the bus's dedupe key, so a relay that dies
 * between publish and mark publishes again harmlessly.
 */
/** Events the relay reads and publishes at a time. */
const RELAY_PAGE = 200;

/**
 * How long a sent event stays in the table, and how often the relay clears older ones. A sent row
 * is never read again (the relay reads unsent rows only; the bus has the event), so without
 * pruning a service's database grows with every event it ever sent.
 */
export interface OutboxRetention {
  keepSentMs: number;
  pruneEveryMs: number;
}
const DEFAULT_RETENTION: OutboxRetention = { keepSentMs: 3_600_000, pruneEveryMs: 600_000 };

export class Outbox {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private failures = 0;
  private lastPrune = 0;

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    private readonly producer: { node: string; service: string },
    private readonly log: Logger,
    private readonly signer?: EnvelopeSigner,
    private readonly pollMs = 1000,
    private readonly retention: OutboxRetention = DEFAULT_RETENTION,
  ) {}

  /** Build a validated envelope. */
  envelope<E extends EventDefinition>(
    def: E,
    payload: z.input<E['payload']>,
    traceparent = callContext.getStore()?.traceparent,
  ): EventEnvelope {
    const envelope: EventEnvelope = {
      id: randomUUID(),
      subject: def.subject,
      occurredAt: new Date().toISOString(),
      producer: this.producer,
      payload: def.payload.parse(payload),
      ...(traceparent ? { traceparent } : {}),
    };
    return this.signer ? this.signer.sign(envelope) : envelope;
  }

  /** Run `fn` in a transaction; events it emits commit with its rows and are relayed right after. */
  async transaction<T>(fn: (tx: Transaction, emit: Emit) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(async (tx) => {
      const events: EventEnvelope[] = [];
      const emit: Emit = (def, payload) => {
        const e = this.envelope(def, payload);
        events.push(e);
        return e;
      };
      const r = await fn(tx, emit);
      if (events.length) await this.insert(tx, events);
      return r;
    });
    this.wake();
    return result;
  }

  /** Add events inside a transaction the caller already holds. */
  async insert(tx: Transaction | Database, events: EventEnvelope[]): Promise<void> {
    const now = Date.now();
    await tx
      .insert(outbox)
      .values(
        events.map((e) => ({ id: e.id, subject: e.subject, envelope: JSON.stringify(e), createdAt: now })),
      );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Relay now rather than at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Publish everything pending; returns how many were sent. Also what tests call to drain. */
  async flush(): Promise<number> {
    let sent = 0;
    for (;;) {
      const rows = await this.db
        .select({ seq: outbox.seq, envelope: outbox.envelope })
        .from(outbox)
        .where(isNull(outbox.sentAt))
        .orderBy(asc(outbox.seq))
        .limit(RELAY_PAGE);
      if (!rows.length) return sent;
      for (const row of rows) {
        await this.bus.publish(JSON.parse(row.envelope) as EventEnvelope);
        sent++;
      }
      const seqs = rows.map((r) => r.seq);
      await this.db.transaction(async (tx) => {
        await tx.update(outbox).set({ sentAt: Date.now() }).where(inArray(outbox.seq, seqs));
      });
      // A short page was all there was: no second read. An event committed since then woke the
      // relay (`wake` runs it again), or the next poll finds it.
      if (rows.length < RELAY_PAGE) return sent;
    }
  }

  /** Drop events sent more than `olderThanMs` ago; the bus has them. Returns how many went. */
  async prune(olderThanMs = this.retention.keepSentMs): Promise<number> {
    const gone = await this.db
      .delete(outbox)
      .where(and(sql`${outbox.sentAt} is not null`, lt(outbox.sentAt, Date.now() - olderThanMs)))
      .returning({ seq: outbox.seq });
    return gone.length;
  }

  private schedule(ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.schedule(0);
        } else this.schedule(this.failures ? Math.min(30_000, 250 * 2 ** this.failures) : this.pollMs);
      });
    }, ms);
    this.timer.unref?.();
  }

  private async run() {
    try {
      await this.flush();
      if (this.failures) this.log.info('outbox relay recovered');
      this.failures = 0;
      const now = Date.now();
      if (now - this.lastPrune >= this.retention.pruneEveryMs) {
        this.lastPrune = now;
        await this.prune();
      }
    } catch (err) {
      this.failures = Math.min(this.failures + 1, 7);
      if (this.failures <= 2 || this.failures === 7)
        this.log.warn({ err: (err as Error).message }, 'outbox relay cannot publish; will retry');
    }
  }
}

/**
 * Apply an event's effects once per consumer: the inbox row and the handler's writes commit
 * together, so a redelivered event finds its row and does nothing.
 */
export async function handleOnce(
  db: Database,
  consumer: string,
  event: EventEnvelope,
  fn: (tx: Transaction) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(inbox)
      .values({ consumer, eventId: event.id, handledAt: Date.now() })
      .onConflictDoNothing()
      .returning({ id: inbox.eventId });
    if (!inserted.length) return false;
    await fn(tx);
    return true;
  });
}
