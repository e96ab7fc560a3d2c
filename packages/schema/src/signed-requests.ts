import { ApprovalsRpc } from './approvals.js';
import { KnowledgeRpc } from './knowledge-events.js';
import { UsersRpc } from './users.js';

/**
 * The requests that release or read private data: on NATS their handlers accept only a request
 * signed by their own node's key (the kit's network/request-signing.ts signs and checks them).
 */
export const SIGNED_REQUESTS: ReadonlySet<string> = new Set(
  [KnowledgeRpc.retrieve, KnowledgeRpc.sourceFacts, ApprovalsRpc.evaluate, UsersRpc.verifyKey].map(
    (rpc) => rpc.subject,
  ),
);
