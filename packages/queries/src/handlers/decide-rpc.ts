import type { EventBus } from '@lore/kit';
import { DecideQueryRequest, QueriesRpc } from '@lore/schema/queries';
import type { ReceivedRepository } from '../domain/received.js';

/**
 * The recipient accepts or rejects a query (cqAcceptQuery / cqRejectQuery, served by approvals).
 * The lifecycle decides here; the decision reaches the decision log as `lore.queries.query.decided`.
 */
export const decideRpc = (received: ReceivedRepository, now: () => number) => (bus: EventBus) =>
  bus.reply(QueriesRpc.decide, async (payload) => {
    const r = DecideQueryRequest.parse(payload);
    const accept = r.outcome === 'accepted';
    const row = await received.applyOwn(r.queryId, r.recipientId, accept ? 'accept' : 'reject', {
      type: accept ? 'accept' : 'reject',
      by: r.decidedBy,
      reason: r.reason,
      at: now(),
    });
    return { queryId: row.id, question: row.question, askerHandle: row.askerHandle, status: r.outcome };
  });
