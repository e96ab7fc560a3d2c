import type { Logger } from '@lore/kit';
import { GroupCommit, settleInPool } from '@lore/kit';
import type { Database } from '@lore/kit/db';
import { inbox } from '@lore/kit/db';
import type { EventEnvelope } from '@lore/schema/events';
import type { QuestionAsked } from '@lore/schema/queries';
import type { z } from 'zod';
import type * as tables from '../tables.js';
import type { Drafter } from './drafting.js';
import type { Evaluation } from './evaluation.js';
import type { Command, RetryPolicy } from './lifecycle.js';
import type { Network } from './network.js';
import type { ReceivedRepository, ReceivedRow, Step, StepResult } from './received.js';

type Asked = z.output<typeof QuestionAsked.payload>;

export interface IntakeDeps {
  db: Database<typeof tables>;
  received: ReceivedRepository;
  drafter: Drafter;
  evaluation: Evaluation;
  network: Network;
  retry: RetryPolicy;
  /** Questions of one asker that may wait in one recipient's inbox; past it a new one is not recorded. */
  waitingPerAsker?: number;
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
}

/**
 * What a node does with a question it hears about: for each recipient it hosts, record the
 * query, draft from that recipient's knowledge, then let the recipient's conditions decide
 * (the lifecycle's steps). A step that cannot run (the knowledge or approvals service away, the
 * bus down) is not the event's failure: the copy is kept with a retry time and `advance` runs
 * it again later (the Retrier), until the retry window ends and it is marked undeliverable.
 * Recipients are handled several at a time, and the writes of those that finish together share
 * a transaction. Safe to run again on the same event: a recipient's copy is recorded once (its
 * inbox row and the copy's key) and each step applies only to the state it expects.
 */
export class Intake {
  private readonly recording = new GroupCommit<Receipt, ReceivedRow | undefined>((batch) =>
    this.record(batch),
  );
  private readonly stepping = new GroupCommit<Step, StepResult>((batch) => this.d.received.apply(batch));

  constructor(
    private readonly d: IntakeDeps,
    readonly consumer: string,
  ) {}

  async handle(asked: Asked, event: EventEnvelope): Promise<void> {
    const check = await this.d.network.check(event, asked.asker);
    if (!check.ok) return;
    // The asker as this node names it (`dana@node-c` where a local dana exists), wherever it shows.
    const q: Asked = { ...asked, asker: { ...asked.asker, handle: check.handle } };
    // A question past its expiry (a replay after a long outage) is not worth drafting.
    if (Date.parse(q.expiresAt) < this.d.now()) return;
    // The event says which node hosts each recipient: the others are that node's business.
    const candidates = q.recipients.filter((r) => r.id !== q.asker.id && r.node === this.d.network.nodeId);
    if (!candidates.length) return;
    const copies = await this.d.received.copiesOf(q.questionId);
    // The asker's node refuses past the limit; a node that does not (an old or hostile one) still
    // cannot fill an inbox: a new copy over the limit is not recorded.
    const limit = this.d.waitingPerAsker ?? Number.POSITIVE_INFINITY;
    const waiting = Number.isFinite(limit)
      ? await this.d.received.waitingFrom(
          q.asker.id,
          candidates.filter((r) => !copies.has(r.id)).map((r) => r.id),
        )
      : new Map<string, number>();
    const failed = await settleInPool(candidates, RECIPIENTS_IN_FLIGHT, async (r) => {
      if (!copies.has(r.id) && (waiting.get(r.id) ?? 0) >= limit) {
        this.d.log.warn(
          { queryId: q.questionId, askerNode: q.asker.node, recipient: r.handle, limit },
          'question not recorded: the asker already has as many waiting in this inbox as allowed',
        );
        return;
      }
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
    const row = copy ?? (await this.recording.add({ event, q, recipient }));
    if (row) await this.advance(row);
  }

  /**
   * Run a copy's pending steps: draft it, then evaluate it. A step that fails is recorded as a
   * failed attempt (retried later with backoff, or given up at the end of the window); it does
   * not throw.
   */
  async advance(start: ReceivedRow): Promise<ReceivedRow> {
    let row = start;
    for (;;) {
      let command: Command;
      if (row.status === 'drafting') {
        command = await this.attempt('draft', row, async (at) => ({
          type: 'draft',
          ...(await this.d.drafter.draft(row.recipientId, row.question)),
          at,
        }));
      } else if (row.status === 'drafted' && row.evaluatedAt === null) {
        command = await this.attempt('evaluate', row, async (at) => ({
          type: 'evaluate',
          verdict: await this.d.evaluation.evaluate(row),
          at,
        }));
      } else return row;
      const r = await this.stepping.add({ id: row.id, recipientId: row.recipientId, command });
      if (!r || 'refused' in r || !r.changed || command.type === 'fail') return r?.row ?? row;
      row = r.row;
    }
  }

  private async attempt(
    step: 'draft' | 'evaluate',
    row: ReceivedRow,
    run: (at: number) => Promise<Command>,
  ): Promise<Command> {
    try {
      return await run(this.d.now());
    } catch (err) {
      const error = errorMessage(err);
      this.d.log.warn(
        { err: error, queryId: row.id, step, attempts: row.attempts + 1 },
        'query step failed; retrying later',
      );
      return { type: 'fail', step, error, policy: this.d.retry, at: this.d.now() };
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
          id: b.q.questionId,
          recipient: b.recipient,
          asker: {
            id: b.q.asker.id,
            handle: b.q.asker.handle,
            node: b.q.asker.node,
            profile: b.q.asker.profile,
          },
          question: b.q.question,
          broadcast: b.q.broadcast === true,
          askedAt: Date.parse(b.q.askedAt),
        })),
      );
    });
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
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));
