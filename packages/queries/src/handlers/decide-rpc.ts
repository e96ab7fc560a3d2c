import type { EventBus } from '@lore/kit';
import { DecideQueryRequest, QueriesRpc } from '@lore/schema';
import type { ReceivedRepository } from '../domain/received.js';

/** The approvals service settles a pending query (cqAcceptQuery / cqRejectQuery). */
export const decideRpc = (received: ReceivedRepository) => (bus: EventBus) =>
  bus.reply(QueriesRpc.decide, async (payload) => {
    const r = DecideQueryRequest.parse(payload);
    const row = await received.decide(r.queryId, r.recipientId, {
      outcome: r.outcome,
      decidedBy: r.decidedBy,
      condition: r.condition,
      reason: r.reason,
    });
    return { queryId: row.id, question: row.question, askerHandle: row.askerHandle, status: r.outcome };
  });
