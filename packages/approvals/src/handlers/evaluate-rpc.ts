import type { EventBus } from '@lore/kit';
import { ApprovalsRpc, EvaluateQueryRequest } from '@lore/schema';
import type { ConditionRepository } from '../domain/conditions.js';
import type { DecisionRepository } from '../domain/decisions.js';
import type { Evaluator } from '../domain/evaluator.js';

/** The queries service asks what a recipient's conditions say about a drafted query; the answer is logged. */
export const evaluateRpc =
  (conditions: ConditionRepository, decisions: DecisionRepository, evaluator: Evaluator) => (bus: EventBus) =>
    bus.reply(ApprovalsRpc.evaluate, async (payload) => {
      const req = EvaluateQueryRequest.parse(payload);
      const verdict = await evaluator.evaluate(await conditions.list(req.recipient.id), req);
      await decisions.record({
        queryId: req.queryId,
        recipientId: req.recipient.id,
        recipientHandle: req.recipient.handle,
        askerHandle: req.asker.handle,
        kind: 'auto',
        outcome: verdict.outcome,
        decidedBy: verdict.decidedBy,
        condition: verdict.condition,
        reason: verdict.reason,
        checks: verdict.checks,
      });
      return verdict;
    });
