import type { Database, Logger, NodeLocalBus, Outbox } from '@lore/kit';
import { handleOnce } from '@lore/kit';
import type { EventEnvelope } from '@lore/schema';
import { ApprovalsRpc, EvaluateQueryReply, QuestionAsked } from '@lore/schema';
import type { z } from 'zod';
import type * as tables from '../tables.js';
import type { Drafter } from './drafting.js';
import type { Network } from './network.js';
import type { Decision, ReceivedRepository, ReceivedRow } from './received.js';

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
 * What a node does with a question it hears about: for each recipient it hosts, draft from
 * that recipient's knowledge, record the query, then let the recipient's conditions decide.
 * Safe to run again on the same event: each step checks what is already done.
 */
export class Intake {
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
    for (const r of q.recipients) {
      if (r.id === q.asker.id) continue;
      if (!(await this.d.network.hostedHere(r.handle, r.id))) continue;
      await this.forRecipient(event, q, { id: r.id, handle: r.handle });
    }
  }

  private async forRecipient(event: EventEnvelope, q: Asked, recipient: { id: string; handle: string }) {
    let row = await this.d.received.get(q.questionId, recipient.id);
    if (!row) {
      const draft = await this.d.drafter.draft(recipient.id, q.question);
      await handleOnce(this.d.db, `${this.consumer}#${recipient.id}`, event, async (tx) => {
        await this.d.received.receive(
          tx,
          {
            id: q.questionId,
            recipient,
            asker: { id: q.asker.id, handle: q.asker.handle, node: q.asker.node, profile: q.asker.profile },
            question: q.question,
            askedAt: Date.parse(q.askedAt),
          },
          draft,
        );
      });
      this.d.outbox.wake();
      row = await this.d.received.get(q.questionId, recipient.id);
    }
    if (row && row.status === 'pending' && row.evaluatedAt === null && row.draftText)
      await this.evaluate(row);
  }

  /** Ask the recipient's approvals what its conditions say, and apply it. */
  private async evaluate(row: ReceivedRow): Promise<void> {
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
        outcome: reply.outcome,
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
    const applied = await this.d.received.applyAutomatic(row, decision);
    if (applied) this.d.outbox.wake();
  }
}
