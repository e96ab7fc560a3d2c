import type { VerifiedAgent } from '@lore/schema/users';
import type { QueriesPorts } from '../ports.js';

/**
 * A recipient's own decision on its copy (cqAcceptQuery, cqRejectQuery and the inbox app's
 * buttons). The lifecycle enforces the rules — the recipient's copy only, only while it waits for
 * its owner, once — and the decision log records it in the same transaction.
 */
export async function decideManually(
  ports: Pick<QueriesPorts, 'received' | 'now'>,
  agent: VerifiedAgent,
  queryId: string,
  outcome: 'accepted' | 'rejected',
  reason: string,
) {
  const accept = outcome === 'accepted';
  const row = await ports.received.applyOwn(queryId, agent.id, accept ? 'accept' : 'reject', {
    type: accept ? 'accept' : 'reject',
    by: `manual:@${agent.handle}`,
    reason,
    at: ports.now(),
  });
  return { queryId: row.id, question: row.question, askerHandle: row.askerHandle };
}
