/**
 * The node's own questions and answers, read from its stream, sent to the nodes that host their
 * recipients; an event without every receipt is thrown back to be delivered again later.
 */
import type { EventEnvelope } from '@lore/schema/events';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import type { NetworkDirectory } from './directory.js';
import { netSubjects } from './federation-subjects.js';
import type { CarriedEvent, Receipt } from './federation-types.js';

/**
 * An answer for an asker no longer in the directory (its node silent past the TTL) is sent again
 * for this long after it was written, in case the node returns, then given up.
 */
const UNKNOWN_ASKER_RETRY_MS = 24 * 3_600_000;

export interface OutboundOptions {
  self: string;
  carried: ReadonlyMap<string, CarriedEvent>;
  directory: NetworkDirectory;
  log: Pick<Logger, 'warn'>;
  receiptTimeoutMs: number;
  now: () => number;
}

export class Outbound {
  /** Event and node pairs with a receipt, so a redelivered event goes only where it is missing. */
  private readonly delivered = new Set<string>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly o: OutboundOptions,
  ) {}

  /** Sends one of this node's events to the nodes it concerns; throws to be delivered again later. */
  async send(event: EventEnvelope): Promise<void> {
    const self = this.o.self;
    if (event.producer.node !== self || event.signature?.node !== self) return;
    const carried = this.o.carried.get(event.subject);
    if (!carried) return;
    const route = carried.route(event.payload);
    if (route.expiresAt && Date.parse(route.expiresAt) < this.o.now()) return;
    const handles = await this.o.directory.listHandles();
    // Nodes on this NATS (their agents claimed here) have the event on the shared stream already.
    const sameNats = new Set(handles.filter((h) => !h.network).map((h) => h.node));
    const targets = new Set<string>();
    for (const r of route.recipients) {
      const node = r.node ?? handles.find((h) => h.agentId === r.id)?.node;
      if (node === undefined) {
        // Its node went silent past the directory's TTL: kept a while in case it returns.
        if (Date.parse(event.occurredAt) > this.o.now() - UNKNOWN_ASKER_RETRY_MS)
          throw new Error(`queued: agent ${r.id} is on no node known now`);
        this.o.log.warn({ event: event.id, agent: r.id }, 'network event given up: its recipient left');
        continue;
      }
      if (node !== self && !sameNats.has(node)) targets.add(node);
    }
    const kind = carried.kind;
    const pending: string[] = [];
    for (const to of targets) {
      const mark = `${event.id}\n${to}`;
      if (this.delivered.has(mark)) continue;
      try {
        const reply = await this.nc.request(netSubjects[kind](to, self), JSON.stringify(event), {
          timeout: this.o.receiptTimeoutMs,
        });
        const receipt = reply.json<Receipt>();
        if (receipt.ok) this.remember(mark);
        else if (receipt.retry) pending.push(`${to}: ${receipt.error}`);
        else {
          // Refused for good (the peer does not believe it): retrying would not change that.
          this.remember(mark);
          this.o.log.warn({ to, event: event.id, error: receipt.error }, 'network peer refused an event');
        }
      } catch (err) {
        pending.push(`${to}: ${(err as Error).message}`);
      }
    }
    if (pending.length) throw new Error(`queued for ${pending.join('; ')}`);
  }

  private remember(mark: string) {
    this.delivered.add(mark);
    // Bounded: a redelivered event the peer already stored is stored once anyway (its id).
    if (this.delivered.size > 50_000) this.delivered.delete(this.delivered.values().next().value as string);
  }
}
