import type { VerifiedAgent } from '@lore/schema';
import { DecideQueryReply, QueriesRpc } from '@lore/schema';
import type { ApprovalsPorts } from '../ports.js';

/**
 * A recipient's own decision. The queries service holds the query and enforces the rules
 * (the recipient's copy only, pending only, once); the decision is logged here after it holds.
 */
export async function decideManually(
  ports: ApprovalsPorts,
  agent: VerifiedAgent,
  queryId: string,
  outcome: 'accepted' | 'rejected',
  reason: string,
) {
  const decidedBy = `manual:@${agent.handle}`;
  const reply = DecideQueryReply.parse(
    await ports.bus.request(
      QueriesRpc.decide,
      { queryId, recipientId: agent.id, outcome, decidedBy, condition: null, reason },
      { timeoutMs: 10_000 },
    ),
  );
  await ports.decisions.record({
    queryId,
    recipientId: agent.id,
    recipientHandle: agent.handle,
    askerHandle: reply.askerHandle,
    kind: 'manual',
    outcome,
    decidedBy,
    condition: null,
    reason,
    checks: [],
  });
  return reply;
}
