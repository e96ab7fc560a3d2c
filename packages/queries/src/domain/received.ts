import { conflict, forbidden, notFound } from '@lore/kit';
import type { Emit, Outbox } from '@lore/kit/bus';
import type { Database, Transaction } from '@lore/kit/db';
import type { EventEnvelope } from '@lore/schema/events';
import { type AskerProfile, QueryDecided, type ReceivedStatus } from '@lore/schema/queries';
import { and, asc, count, desc, eq, gte, inArray, lte, ne, or } from 'drizzle-orm';
import * as tables from '../tables.js';
import { citationsDrawnOn } from './citing.js';
import { DecisionLog } from './decisions.js';
import { type Command, initialState, Refused, run } from './lifecycle.js';
import { announce, columnsOf, type ReceivedRow, stateOf } from './received-state.js';

/** The statuses of a copy that still waits for its owner (or for this node) in an inbox. */
const WAITING = ['drafting', 'drafted', 'pending', 'held', 'no-knowledge'];

const { receivedQueries } = tables;

export type { Draft } from './lifecycle.js';
export type { ReceivedRow } from './received-state.js';

export interface IncomingQuery {
  id: string;
  recipient: { id: string; handle: string };
  asker: { id: string; handle: string; node: string; profile: AskerProfile | null };
  question: string;
  /** Asked of the whole network, as the asker's node says; anything but `true` is asked by name. */
  broadcast: boolean;
  askedAt: number;
}

/** A lifecycle command for one recipient's copy of a query. */
export interface Step {
  id: string;
  recipientId: string;
  command: Command;
}

/** What a step did: the copy as it is now (changed or not), or why the command was refused. */
export type StepResult =
  | { row: ReceivedRow; changed: boolean }
  | { refused: Refused; row: ReceivedRow }
  | null;

/** The recipient's side: queries addressed to agents hosted here, their drafts and decisions. */
export class ReceivedRepository {
  /** Every decision announced, written with the change that announces it. */
  readonly decisions: DecisionLog;

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number,
  ) {
    this.decisions = new DecisionLog(db);
  }

  async get(id: string, recipientId: string): Promise<ReceivedRow | undefined> {
    return this.db.query.receivedQueries.findFirst({
      where: and(eq(receivedQueries.id, id), eq(receivedQueries.recipientId, recipientId)),
    });
  }

  /** The caller's copy of a query; 403 when the id names only other agents' copies, 404 when nobody's. */
  async mine(id: string, recipientId: string, verb: string): Promise<ReceivedRow> {
    const row = await this.get(id, recipientId);
    if (row) return row;
    const other = await this.db.query.receivedQueries.findFirst({
      where: and(eq(receivedQueries.id, id), ne(receivedQueries.recipientId, recipientId)),
      columns: { id: true },
    });
    if (other)
      throw forbidden(
        `Query '${id}' is addressed to another agent; you can only ${verb} queries addressed to you.`,
      );
    throw notFound(`No query '${id}' addressed to you. List yours with cqListRequestedQueries.`, {
      field: 'id',
    });
  }

  /** This node's copies of a question, by recipient. */
  /**
   * For each of `recipientIds`, how many questions of `askerId` wait in that recipient's inbox
   * (being drafted, waiting for a decision, or nothing matched and not yet declined).
   */
  async waitingFrom(askerId: string, recipientIds: readonly string[]): Promise<Map<string, number>> {
    if (!recipientIds.length) return new Map();
    const rows = await this.db
      .select({ recipientId: receivedQueries.recipientId, n: count() })
      .from(receivedQueries)
      .where(
        and(
          inArray(receivedQueries.recipientId, [...recipientIds]),
          inArray(receivedQueries.status, WAITING),
          eq(receivedQueries.askerId, askerId),
        ),
      )
      .groupBy(receivedQueries.recipientId);
    return new Map(rows.map((r) => [r.recipientId, Number(r.n)]));
  }

  async copiesOf(id: string): Promise<Map<string, ReceivedRow>> {
    const rows = await this.db.select().from(receivedQueries).where(eq(receivedQueries.id, id));
    return new Map(rows.map((r) => [r.recipientId, r]));
  }

  /**
   * Record queries received here, inside a transaction the caller holds (with their inbox rows),
   * and return the rows this call created (a copy already recorded is left as it is). A copy
   * starts `drafting`; its draft and evaluation are lifecycle steps (`apply`).
   */
  async receive(tx: Transaction, incoming: IncomingQuery[]) {
    if (!incoming.length) return [];
    const t = this.now();
    const state = run({ type: 'receive', at: t }, initialState).state;
    return tx
      .insert(receivedQueries)
      .values(
        incoming.map((q) => ({
          id: q.id,
          recipientId: q.recipient.id,
          recipientHandle: q.recipient.handle,
          askerId: q.asker.id,
          askerHandle: q.asker.handle,
          askerNode: q.asker.node,
          askerProfile: q.asker.profile,
          question: q.question,
          broadcast: q.broadcast,
          askedAt: q.askedAt,
          receivedAt: t,
          ...columnsOf(state),
        })),
      )
      .onConflictDoNothing()
      .returning();
  }

  /**
   * Run lifecycle commands, several in one transaction: each copy is read, decided, folded and
   * written back only if nobody changed it meanwhile (its version), with the events its new
   * state causes and the decision log's rows for them. Returns, in order, what each step did.
   */
  async apply(steps: Step[]): Promise<StepResult[]> {
    return this.outbox.transaction(async (tx, emit) => {
      const out: StepResult[] = [];
      const decided: EventEnvelope[] = [];
      const logged: Emit = (def, payload) => {
        const event = emit(def, payload);
        if (def.subject === QueryDecided.subject) decided.push(event);
        return event;
      };
      for (const step of steps) {
        const [row] = await tx
          .select()
          .from(receivedQueries)
          .where(and(eq(receivedQueries.id, step.id), eq(receivedQueries.recipientId, step.recipientId)));
        if (!row) {
          out.push(null);
          continue;
        }
        let result: ReturnType<typeof run>;
        try {
          result = run(step.command, stateOf(row));
        } catch (err) {
          if (err instanceof Refused) {
            out.push({ refused: err, row });
            continue;
          }
          throw err;
        }
        if (!result.events.length) {
          out.push({ row, changed: false });
          continue;
        }
        const same = and(
          eq(receivedQueries.id, row.id),
          eq(receivedQueries.recipientId, row.recipientId),
          eq(receivedQueries.version, row.version),
        );
        if (result.state.status === 'dropped') {
          // A broadcast nothing was relevant to leaves no trace in the inbox; the event's inbox
          // row (written when the copy was recorded) keeps a redelivery from recording it again.
          const gone = await tx.delete(receivedQueries).where(same).returning({ id: receivedQueries.id });
          out.push(gone.length ? null : { row, changed: false });
          continue;
        }
        const [updated] = await tx
          .update(receivedQueries)
          .set({ ...columnsOf(result.state), version: row.version + 1 })
          .where(same)
          .returning();
        if (!updated) {
          out.push({ row, changed: false });
          continue;
        }
        for (const e of result.events) announce(logged, updated, e);
        out.push({ row: updated, changed: true });
      }
      await this.decisions.record(tx, decided);
      return out;
    });
  }

  /** One command from the recipient (accept, reject, edit): refused commands become tool errors. */
  async applyOwn(id: string, recipientId: string, verb: string, command: Command): Promise<ReceivedRow> {
    await this.mine(id, recipientId, verb);
    const [r] = await this.apply([{ id, recipientId, command }]);
    if (!r) throw notFound(`No query '${id}' addressed to you.`, { field: 'id' });
    if ('refused' in r)
      throw conflict(`Query '${id}' ${r.refused.message}.`, { field: 'id', status: r.refused.status });
    if (!r.changed)
      throw conflict(`Query '${id}' changed meanwhile; list it again and retry.`, { field: 'id' });
    return r.row;
  }

  /** Copies whose step is due (a retry, or a step nobody finished), oldest first. */
  async due(now: number, limit: number): Promise<ReceivedRow[]> {
    return this.db
      .select()
      .from(receivedQueries)
      .where(
        and(
          inArray(receivedQueries.status, ['drafting', 'drafted']),
          lte(receivedQueries.nextAttemptAt, now),
        ),
      )
      .orderBy(asc(receivedQueries.nextAttemptAt))
      .limit(limit);
  }

  /** Take a due copy for one attempt: false when another replica took it first. */
  async claim(row: ReceivedRow, until: number): Promise<boolean> {
    if (row.nextAttemptAt === null) return false;
    const taken = await this.db
      .update(receivedQueries)
      .set({ nextAttemptAt: until })
      .where(
        and(
          eq(receivedQueries.id, row.id),
          eq(receivedQueries.recipientId, row.recipientId),
          eq(receivedQueries.nextAttemptAt, row.nextAttemptAt),
        ),
      )
      .returning({ id: receivedQueries.id });
    return taken.length > 0;
  }

  /**
   * The recipient rewrites the answer. It keeps the citations of the draft's sources it still
   * draws on (none: written by the owner). Pending or held: the draft changes (and is what an
   * accept sends). No knowledge: the recipient's own answer becomes a pending draft. Accepted:
   * the revision goes to the asker at once. Rejected: refused.
   */
  async edit(
    id: string,
    recipientId: string,
    text: string,
    editor: string,
  ): Promise<{ row: ReceivedRow; sent: boolean }> {
    const before = await this.mine(id, recipientId, 'edit');
    const row = await this.applyOwn(id, recipientId, 'edit', {
      type: 'edit',
      text,
      // Checked against the draft as written, so a second edit may cite again what a first dropped.
      citations: citationsDrawnOn(text, stateOf(before).draft?.sources ?? []),
      by: `@${editor}`,
      at: this.now(),
    });
    return { row, sent: row.revision > before.revision };
  }

  async list(
    recipientId: string,
    filter: { status?: ReceivedStatus; from?: string },
  ): Promise<ReceivedRow[]> {
    const where = [
      eq(receivedQueries.recipientId, recipientId),
      // A broadcast is the owner's business only once something relevant was found.
      or(eq(receivedQueries.broadcast, false), ne(receivedQueries.status, 'drafting')),
    ];
    if (filter.status) where.push(eq(receivedQueries.status, filter.status));
    if (filter.from) where.push(eq(receivedQueries.askerHandle, filter.from));
    return this.db
      .select()
      .from(receivedQueries)
      .where(and(...where))
      .orderBy(desc(receivedQueries.receivedAt));
  }

  async stats(since: number): Promise<Record<string, number>> {
    const rows = await this.db
      .select({ status: receivedQueries.status, n: count() })
      .from(receivedQueries)
      .groupBy(receivedQueries.status);
    const today = await this.db
      .select({ n: count() })
      .from(receivedQueries)
      .where(gte(receivedQueries.receivedAt, since));
    const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    return {
      queriesReceived: rows.reduce((s, r) => s + Number(r.n), 0),
      queriesReceivedToday: Number(today[0]?.n ?? 0),
      queriesPending: by.pending ?? 0,
      queriesAccepted: by.accepted ?? 0,
      queriesRejected: by.rejected ?? 0,
      queriesNoKnowledge: by['no-knowledge'] ?? 0,
      queriesHeld: by.held ?? 0,
      queriesInProgress: (by.drafting ?? 0) + (by.drafted ?? 0),
      queriesUndeliverable: by.undeliverable ?? 0,
    };
  }
}
