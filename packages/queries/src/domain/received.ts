import type { Database, Emit, Outbox, Transaction } from '@lore/kit';
import { conflict, forbidden, notFound } from '@lore/kit';
import type { AnswerCitation, AskerProfile, ReceivedStatus } from '@lore/schema';
import { AnswerShared, AnswerWithheld } from '@lore/schema';
import { and, count, desc, eq, gte, isNull, ne } from 'drizzle-orm';
import * as tables from '../tables.js';

const { receivedQueries } = tables;
export type ReceivedRow = typeof receivedQueries.$inferSelect;

export interface Draft {
  text: string;
  citations: AnswerCitation[];
  strategy: 'endpoint' | 'sampling' | 'extractive';
}

export interface IncomingQuery {
  id: string;
  recipient: { id: string; handle: string };
  asker: { id: string; handle: string; node: string; profile: AskerProfile | null };
  question: string;
  askedAt: number;
}

export interface Decision {
  outcome: 'accepted' | 'rejected' | 'pending';
  decidedBy: string;
  condition: string | null;
  reason: string;
}

/** The recipient's side: queries addressed to agents hosted here, their drafts and decisions. */
export class ReceivedRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number,
  ) {}

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
  async copiesOf(id: string): Promise<Map<string, ReceivedRow>> {
    const rows = await this.db.select().from(receivedQueries).where(eq(receivedQueries.id, id));
    return new Map(rows.map((r) => [r.recipientId, r]));
  }

  /**
   * Record queries received here, inside a transaction the caller holds (with their inbox rows),
   * and return the rows this call created (a copy already recorded is left as it is). Without a
   * draft a query is settled as `no-knowledge` and the asker is told so.
   */
  async receive(tx: Transaction, incoming: Array<{ q: IncomingQuery; draft: Draft | null }>) {
    if (!incoming.length) return [];
    const t = this.now();
    const inserted = await tx
      .insert(receivedQueries)
      .values(
        incoming.map(({ q, draft }) => ({
          id: q.id,
          recipientId: q.recipient.id,
          recipientHandle: q.recipient.handle,
          askerId: q.asker.id,
          askerHandle: q.asker.handle,
          askerNode: q.asker.node,
          askerProfile: q.asker.profile,
          question: q.question,
          askedAt: q.askedAt,
          receivedAt: t,
          status: draft ? 'pending' : 'no-knowledge',
          draftText: draft?.text ?? null,
          citations: draft?.citations ?? [],
          strategy: draft?.strategy ?? null,
          decisionReason: draft
            ? 'Drafted; waiting for your auto-approval conditions.'
            : 'No relevant knowledge: nothing was drafted and the asker was told.',
          decidedBy: draft ? 'none' : 'no-knowledge',
          decidedAt: draft ? null : t,
        })),
      )
      .onConflictDoNothing()
      .returning();
    const withheld = inserted.filter((r) => r.status === 'no-knowledge');
    if (withheld.length)
      await this.outbox.insert(
        tx,
        withheld.map((r) =>
          this.outbox.envelope(AnswerWithheld, {
            questionId: r.id,
            askerId: r.askerId,
            askerHandle: r.askerHandle,
            recipientId: r.recipientId,
            recipientHandle: r.recipientHandle,
            reason: 'no-knowledge',
            at: new Date(t).toISOString(),
          }),
        ),
      );
    return inserted;
  }

  /**
   * Apply what the conditions said, once per query: only a pending query that was not evaluated
   * yet. Several decisions share one transaction; returns the rows that changed, in order.
   */
  async applyAutomatic(decisions: Array<{ row: ReceivedRow; decision: Decision }>) {
    return this.outbox.transaction(async (tx, emit) => {
      const t = this.now();
      const out: Array<ReceivedRow | null> = [];
      for (const { row, decision: d } of decisions) {
        const settled = d.outcome !== 'pending';
        const [updated] = await tx
          .update(receivedQueries)
          .set({
            status: d.outcome,
            evaluatedAt: t,
            decisionReason: d.reason,
            decidedBy: d.decidedBy,
            decisionCondition: d.condition,
            decidedAt: settled ? t : null,
            revision: d.outcome === 'accepted' ? 1 : row.revision,
          })
          .where(
            and(
              eq(receivedQueries.id, row.id),
              eq(receivedQueries.recipientId, row.recipientId),
              eq(receivedQueries.status, 'pending'),
              isNull(receivedQueries.evaluatedAt),
            ),
          )
          .returning();
        if (updated) this.announce(emit, updated);
        out.push(updated ?? null);
      }
      return out;
    });
  }

  /** A manual accept or reject: only the recipient's copy, only from pending, only once. */
  async decide(
    id: string,
    recipientId: string,
    d: { outcome: 'accepted' | 'rejected'; decidedBy: string; condition: string | null; reason: string },
  ): Promise<ReceivedRow> {
    const row = await this.mine(id, recipientId, d.outcome === 'accepted' ? 'accept' : 'reject');
    this.assertPending(row, d.outcome === 'accepted' ? 'accepted' : 'rejected');
    return this.outbox.transaction(async (tx, emit) => {
      const t = this.now();
      const [updated] = await tx
        .update(receivedQueries)
        .set({
          status: d.outcome,
          decisionReason: d.reason,
          decidedBy: d.decidedBy,
          decisionCondition: d.condition,
          decidedAt: t,
          evaluatedAt: row.evaluatedAt ?? t,
          revision: d.outcome === 'accepted' ? row.revision + 1 : row.revision,
        })
        .where(
          and(
            eq(receivedQueries.id, id),
            eq(receivedQueries.recipientId, recipientId),
            eq(receivedQueries.status, 'pending'),
          ),
        )
        .returning();
      // Another decision got there first (the two ran at the same time).
      if (!updated) throw conflict(`Query '${id}' was already decided.`, { field: 'id' });
      this.announce(emit, updated);
      return updated;
    });
  }

  /**
   * The recipient rewrites the answer. Pending: the draft changes (and is what an accept sends).
   * No knowledge: the recipient's own answer becomes a pending draft. Accepted: the revision
   * goes to the asker at once. Rejected: refused.
   */
  async edit(
    id: string,
    recipientId: string,
    text: string,
    editor: string,
  ): Promise<{ row: ReceivedRow; sent: boolean }> {
    const row = await this.mine(id, recipientId, 'edit');
    if (row.status === 'rejected')
      throw conflict(`Query '${id}' was rejected; its answer can no longer be edited.`, {
        field: 'query_id',
      });
    return this.outbox.transaction(async (tx, emit) => {
      const t = this.now();
      const accepted = row.status === 'accepted';
      const [updated] = await tx
        .update(receivedQueries)
        .set({
          draftText: text,
          edited: true,
          strategy: row.strategy ?? 'manual',
          ...(row.status === 'no-knowledge'
            ? {
                status: 'pending',
                decisionReason: `Answer written by @${editor}; waiting for a manual decision.`,
                decidedBy: 'none',
                decidedAt: null,
                evaluatedAt: t,
              }
            : {}),
          ...(accepted ? { revision: row.revision + 1 } : {}),
        })
        .where(
          and(
            eq(receivedQueries.id, id),
            eq(receivedQueries.recipientId, recipientId),
            eq(receivedQueries.status, row.status),
            eq(receivedQueries.revision, row.revision),
          ),
        )
        .returning();
      if (!updated) throw conflict(`Query '${id}' changed while you edited it; list it again and retry.`);
      if (accepted) this.announce(emit, updated);
      return { row: updated, sent: accepted };
    });
  }

  async list(
    recipientId: string,
    filter: { status?: ReceivedStatus; from?: string },
  ): Promise<ReceivedRow[]> {
    const where = [eq(receivedQueries.recipientId, recipientId)];
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
    };
  }

  private assertPending(row: ReceivedRow, verb: 'accepted' | 'rejected') {
    if (row.status === 'pending') return;
    if (row.status === 'no-knowledge')
      throw conflict(
        `Query '${row.id}' has no answer to send (no relevant knowledge). Write one with cqUpdateEditAnswer, then it can be ${verb}.`,
        { field: 'id', status: row.status },
      );
    throw conflict(`Query '${row.id}' is already ${row.status}; only pending queries can be ${verb}.`, {
      field: 'id',
      status: row.status,
    });
  }

  /** What the asker's node hears about a settled query. */
  private announce(emit: Emit, row: ReceivedRow) {
    const base = {
      questionId: row.id,
      askerId: row.askerId,
      askerHandle: row.askerHandle,
      recipientId: row.recipientId,
      recipientHandle: row.recipientHandle,
    };
    if (row.status === 'accepted' && row.draftText) {
      emit(AnswerShared, {
        ...base,
        text: row.draftText,
        citations: row.citations,
        strategy: row.edited
          ? 'manual'
          : ((row.strategy ?? 'manual') as 'endpoint' | 'sampling' | 'extractive' | 'manual'),
        revision: Math.max(1, row.revision),
        sharedAt: new Date(this.now()).toISOString(),
      });
    } else if (row.status === 'rejected') {
      emit(AnswerWithheld, { ...base, reason: 'declined', at: new Date(this.now()).toISOString() });
    }
  }
}
