import type { Database, Logger, NodeLocalBus, Outbox } from '@lore/kit';
import { GroupCommit, inbox, settleInPool } from '@lore/kit';
import type { EventEnvelope } from '@lore/schema';
import { ApprovalsRpc, EvaluateQueryReply, QuestionAsked } from '@lore/schema';
import type { z } from 'zod';
import type * as tables from '../tables.js';
import type { Drafter } from './drafting.js';
import type { Network } from './network.js';
import type { Decision, Draft, ReceivedRepository, ReceivedRow } from './received.js';

type Asked = z.output<typeof QuestionAsked.payload>;

export interface IntakeDeps {
  db: Database<typeof tables>;
  outbox: Outbox;
  received: ReceivedRepository;
  drafter: Drafter;
  network: Network;
  bus: NodeLocalBus;
  now: () => number;
  log: Logger;
}

/**
 * Recipients a node works on at once. Each waits on round trips over NATS (its retrieval, its
 * evaluation), so with fewer in flight a node sits idle between replies; drafts written by a
 * language model have a tighter limit of their own (MODEL_DRAFTS_IN_FLIGHT).
 */
export const RECIPIENTS_IN_FLIGHT = 64;

/** One recipient's copy of a question, ready to be recorded. */
interface Receipt {
  event: EventEnvelope;
  q: Asked;
  recipient: { id: string; handle: string };
  draft: Draft | null;
}

/**
 * What a node does with a question it hears about: for each recipient it hosts, draft from
 * that recipient's knowledge, record the query, then let the recipient's conditions decide.
 * Recipients are handled several at a time, and the writes of those that finish together
 * share a transaction. Safe to run again on the same event: each step checks what is already
 * done, and a recipient's copy is recorded once (its inbox row and the copy's key).
 */
export class Intake {
  private readonly recording = new GroupCommit<Receipt, ReceivedRow | undefined>((batch) =>
    this.record(batch),
  );
  private readonly deciding = new GroupCommit<{ row: ReceivedRow; decision: Decision }, ReceivedRow | null>(
    (batch) => this.d.received.applyAutomatic(batch),
  );

  constructor(
    private readonly d: IntakeDeps,
    readonly consumer: string,
  ) {}

  async handle(event: EventEnvelope): Promise<void> {
    const parsed = QuestionAsked.payload.safeParse(event.payload);
    if (!parsed.success) return this.d.network.drop(event, 'malformed', parsed.error.issues[0]?.message);
    const q = parsed.data;
    const check = await this.d.network.check(event, q.asker);
    if (!check.ok) return;
    // A question past its expiry (a replay after a long outage) is not worth drafting.
    if (Date.parse(q.expiresAt) < this.d.now()) return;
    // The event says which node hosts each recipient: the others are that node's business.
    const candidates = q.recipients.filter((r) => r.id !== q.asker.id && r.node === this.d.network.nodeId);
    if (!candidates.length) return;
    const copies = await this.d.received.copiesOf(q.questionId);
    const failed = await settleInPool(candidates, RECIPIENTS_IN_FLIGHT, async (r) => {
      // The directory has the last word on who is hosted here.
      if (!(await this.d.network.hostedHere(r.handle, r.id))) return;
      await this.forRecipient(event, q, { id: r.id, handle: r.handle }, copies.get(r.id));
    });
    if (failed.length) {
      const first = failed[0]!;
      // The event goes back to the bus: the recipients handled already are skipped next time.
      throw new Error(
        `${failed.length} of ${candidates.length} recipients of ${q.questionId} not handled (first @${first.item.handle}: ${errorMessage(first.err)})`,
      );
    }
  }

  private async forRecipient(
    event: EventEnvelope,
    q: Asked,
    recipient: { id: string; handle: string },
    copy: ReceivedRow | undefined,
  ) {
    let row = copy;
    if (!row) {
      const draft = await this.d.drafter.draft(recipient.id, q.question);
      row = await this.recording.add({ event, q, recipient, draft });
    }
    if (row && row.status === 'pending' && row.evaluatedAt === null && row.draftText) {
      const decision = await this.evaluate(row);
      await this.deciding.add({ row, decision });
    }
  }

  /** Record a batch of copies in one transaction, each once: its inbox row says it was. */
  private async record(batch: Receipt[]): Promise<Array<ReceivedRow | undefined>> {
    const inboxKey = (b: Receipt) => `${this.consumer}#${b.recipient.id}`;
    const created = await this.d.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(inbox)
        .values(batch.map((b) => ({ consumer: inboxKey(b), eventId: b.event.id, handledAt: this.d.now() })))
        .onConflictDoNothing()
        .returning({ consumer: inbox.consumer, eventId: inbox.eventId });
      const fresh = new Set(inserted.map((f) => `${f.consumer} ${f.eventId}`));
      // Taken off the set as it is used: a copy queued twice in one batch is recorded once.
      const todo = batch.filter((b) => fresh.delete(`${inboxKey(b)} ${b.event.id}`));
      return this.d.received.receive(
        tx,
        todo.map((b) => ({
          q: {
            id: b.q.questionId,
            recipient: b.recipient,
            asker: {
              id: b.q.asker.id,
              handle: b.q.asker.handle,
              node: b.q.asker.node,
              profile: b.q.asker.profile,
            },
            question: b.q.question,
            askedAt: Date.parse(b.q.askedAt),
          },
          draft: b.draft,
        })),
      );
    });
    this.d.outbox.wake();
    const byRecipient = new Map(created.map((r) => [`${r.id} ${r.recipientId}`, r]));
    // A copy recorded earlier (a redelivery, another replica) is read back as it is now.
    return Promise.all(
      batch.map(
        (b) =>
          byRecipient.get(`${b.q.questionId} ${b.recipient.id}`) ??
          this.d.received.get(b.q.questionId, b.recipient.id),
      ),
    );
  }

  /** What the recipient's approvals say about a drafted query. */
  private async evaluate(row: ReceivedRow): Promise<Decision> {
    let decision: Decision;
    try {
      const reply = EvaluateQueryReply.parse(
        await this.d.bus.request(
          ApprovalsRpc.evaluate,
          {
            queryId: row.id,
            recipient: { id: row.recipientId, handle: row.recipientHandle },
            asker: { id: row.askerId, handle: row.askerHandle, profile: row.askerProfile ?? null },
            question: row.question,
            draft: {
              text: row.draftText ?? '',
              sources: [...new Set(row.citations.map((c) => c.source))],
              excerpts: row.citations.map((c) => c.excerpt),
            },
          },
          { timeoutMs: 60_000 },
        ),
      );
      decision = {
        // Held by the gate (a secret, a manual source, a source outside the condition): it waits
        // for the recipient like any pending query, the reason saying why.
        outcome: reply.outcome === 'held' ? 'pending' : reply.outcome,
        decidedBy: reply.decidedBy,
        condition: reply.condition,
        reason: reply.reason,
      };
    } catch (err) {
      // Without an answer from approvals nothing is released: the query waits for its recipient.
      this.d.log.warn(
        { err: (err as Error).message, queryId: row.id },
        'auto-approval unavailable; query stays pending',
      );
      decision = {
        outcome: 'pending',
        decidedBy: 'none',
        condition: null,
        reason: 'Auto-approval was unavailable; waiting for a manual decision.',
      };
    }
    return decision;
  }
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));
