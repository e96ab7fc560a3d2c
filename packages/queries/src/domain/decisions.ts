import { randomUUID } from 'node:crypto';
import type { Database, Transaction } from '@lore/kit/db';
import type { EventEnvelope } from '@lore/schema/events';
import type { QueryDecided } from '@lore/schema/queries';
import { and, asc, count, eq, gte, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import * as tables from '../tables.js';

const { decisions } = tables;
export type DecisionRow = typeof decisions.$inferSelect;
type Decided = z.output<typeof QueryDecided.payload>;

/** Outcomes that settle a query (the others leave it waiting, or record an edit). */
const SETTLED = ['accepted', 'rejected'];

/**
 * The decision log: a projection of this service's own `lore.queries.query.decided` events,
 * written in the transaction that emits them — the automatic evaluation of each copy (with the
 * deciding condition, the reason and every condition's result), the owner's accepts, rejects and
 * edits, and copies given up on. One row per event; the received copy keeps only its latest decision.
 */
export class DecisionLog {
  constructor(private readonly db: Database<typeof tables>) {}

  /** Record the decisions a lifecycle step announced, inside the transaction that emits them. */
  async record(tx: Transaction, events: EventEnvelope[]): Promise<void> {
    if (!events.length) return;
    await tx
      .insert(decisions)
      .values(
        events.map((event) => {
          const d = event.payload as Decided;
          return {
            id: randomUUID(),
            eventId: event.id,
            queryId: d.queryId,
            recipientId: d.recipientId,
            recipientHandle: d.recipientHandle,
            askerHandle: d.askerHandle,
            kind: d.kind,
            outcome: d.outcome,
            decidedBy: d.decidedBy,
            condition: d.condition,
            reason: d.reason,
            checks: d.checks,
            at: Date.parse(d.at),
          };
        }),
      )
      .onConflictDoNothing();
  }

  /** A recipient's decisions, oldest first. */
  async forRecipient(recipientId: string): Promise<DecisionRow[]> {
    return this.db
      .select()
      .from(decisions)
      .where(eq(decisions.recipientId, recipientId))
      .orderBy(asc(decisions.at));
  }

  async stats(since: number): Promise<Record<string, number>> {
    const rows = await this.db
      .select({ kind: decisions.kind, outcome: decisions.outcome, n: count() })
      .from(decisions)
      .groupBy(decisions.kind, decisions.outcome);
    const n = (kind: string, outcome: string) =>
      Number(rows.find((r) => r.kind === kind && r.outcome === outcome)?.n ?? 0);
    const [today] = await this.db
      .select({ n: count() })
      .from(decisions)
      .where(and(inArray(decisions.outcome, SETTLED), gte(decisions.at, since)));
    const settled = rows.filter((r) => SETTLED.includes(r.outcome)).reduce((s, r) => s + Number(r.n), 0);
    return {
      decisions: settled,
      decisionsToday: Number(today?.n ?? 0),
      autoAccepted: n('auto', 'accepted'),
      autoRejected: n('auto', 'rejected'),
      leftPending: n('auto', 'pending'),
      autoHeld: n('auto', 'held'),
      manualAccepted: n('manual', 'accepted'),
      manualRejected: n('manual', 'rejected'),
      manualEdits: n('manual', 'edited'),
      undeliverable: n('system', 'undeliverable'),
    };
  }
}
