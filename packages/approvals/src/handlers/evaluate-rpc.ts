import type { EventBus } from '@lore/kit';
import { ApprovalsRpc, EvaluateQueryRequest } from '@lore/schema';
import type { ConditionRepository } from '../domain/conditions.js';
import type { Evaluator } from '../domain/evaluator.js';

/**
 * The queries service asks what a recipient's conditions say about a drafted query. Only a
 * judgement: the queries service decides with it, and the decision comes back to the log as a
 * `lore.queries.query.decided` event.
 */
export const evaluateRpc = (conditions: ConditionRepository, evaluator: Evaluator) => (bus: EventBus) =>
  bus.reply(ApprovalsRpc.evaluate, async (payload) => {
    const req = EvaluateQueryRequest.parse(payload);
    return evaluator.evaluate(await conditions.list(req.recipient.id), req);
  });
