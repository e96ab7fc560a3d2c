import { DecideQueryReply, QueriesRpc } from '@lore/schema/queries';
import type { VerifiedAgent } from '@lore/schema/users';
import type { ApprovalsPorts } from '../ports.js';

/**
 * A recipient's own decision. The queries service holds the query and its lifecycle, which
 * enforces the rules (the recipient's copy only, only while it waits for its owner, once); the
 * decision log records it from the `query.decided` event that follows.
 */
export async function decideManually(
  ports: ApprovalsPorts,
  agent: VerifiedAgent,
  queryId: string,
  outcome: 'accepted' | 'rejected',
  reason: string,
) {
  return DecideQueryReply.parse(
    await ports.bus.request(
      QueriesRpc.decide,
      {
        queryId,
        recipientId: agent.id,
        outcome,
        decidedBy: `manual:@${agent.handle}`,
        condition: null,
        reason,
      },
      { timeoutMs: 10_000 },
    ),
  );
}
