import { call, type NodeLocalBus } from '@lore/kit/bus';
import { ApprovalsRpc, type EvaluateQueryRequest } from '@lore/schema/approvals';
import type { Verdict } from './lifecycle.js';
import type { ReceivedRow } from './received.js';

/** How long one evaluation may take (a model judging every condition of the recipient). */
export const EVALUATION_TIMEOUT_MS = 60_000;

/** What a drafted copy tells approvals: everything its conditions and checks are judged on. */
export function evaluationRequest(row: ReceivedRow): EvaluateQueryRequest {
  return {
    queryId: row.id,
    recipient: { id: row.recipientId, handle: row.recipientHandle },
    asker: { id: row.askerId, handle: row.askerHandle, profile: row.askerProfile ?? null },
    question: row.question,
    draft: {
      text: row.draftText ?? '',
      sources: [...new Set(row.citations.map((c) => c.source))],
      excerpts: row.citations.map((c) => c.excerpt),
      citations: row.citations.map((c) => ({ source: c.source, excerpt: c.excerpt })),
    },
  };
}

/**
 * Asks the approvals service of this node what the recipient's conditions say about a draft.
 * A failure (nothing answers, a timeout, an unreadable reply) throws: the lifecycle retries it,
 * and nothing is released meanwhile.
 */
export class Evaluation {
  constructor(private readonly bus: NodeLocalBus) {}

  async evaluate(row: ReceivedRow): Promise<Verdict> {
    const reply = await call(this.bus, ApprovalsRpc.evaluate, evaluationRequest(row), {
      timeoutMs: EVALUATION_TIMEOUT_MS,
    });
    return {
      outcome: reply.outcome,
      decidedBy: reply.decidedBy,
      condition: reply.condition,
      reason: reply.reason,
      checks: reply.checks,
    };
  }
}
