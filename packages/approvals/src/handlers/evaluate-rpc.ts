import type { EventBus, Logger, NodeLocalBus } from '@lore/kit';
import { ApprovalsRpc, EvaluateQueryRequest } from '@lore/schema/approvals';
import { KnowledgeRpc, type SourceFacts, SourceFactsReply } from '@lore/schema/knowledge-events';
import { AgentsConnectedReply, UsersProfileRpc } from '@lore/schema/profile-rpc';
import type { ConditionRepository } from '../domain/conditions.js';
import type { EvaluationContext, Evaluator } from '../domain/evaluator.js';

/**
 * What the evaluator needs to know beyond the request, asked of this node's services: the cited
 * sources' sharing and topics (knowledge), whether the asker is a connection (users). A service
 * that does not answer leaves the fact unknown, which never releases anything.
 */
async function contextFor(
  req: EvaluateQueryRequest,
  bus: NodeLocalBus,
  log: Logger,
): Promise<EvaluationContext> {
  const names = [...new Set(req.draft.sources)].slice(0, 50);
  let sources: SourceFacts[] | null = [];
  if (names.length)
    try {
      const r = await bus.request(
        KnowledgeRpc.sourceFacts,
        { agentId: req.recipient.id, sources: names },
        { timeoutMs: 5000 },
      );
      sources = SourceFactsReply.parse(r).sources;
    } catch (err) {
      log.warn(
        { err: (err as Error).message, queryId: req.queryId },
        'source facts unavailable; answer held',
      );
      sources = null;
    }
  return {
    sources,
    async connected() {
      try {
        const r = await bus.request(
          UsersProfileRpc.connected,
          { agentId: req.recipient.id, otherId: req.asker.id },
          { timeoutMs: 3000 },
        );
        return AgentsConnectedReply.parse(r).connected;
      } catch {
        return null;
      }
    },
  };
}

/**
 * The queries service asks what a recipient's conditions say about a drafted query. Only a
 * judgement: the queries service decides with it, and the decision comes back to the log as a
 * `lore.queries.query.decided` event.
 */
export const evaluateRpc =
  (conditions: ConditionRepository, evaluator: Evaluator, local: NodeLocalBus, log: Logger) =>
  (bus: EventBus) =>
    bus.reply(ApprovalsRpc.evaluate, async (payload) => {
      const req = EvaluateQueryRequest.parse(payload);
      const [rows, ctx] = await Promise.all([conditions.list(req.recipient.id), contextFor(req, local, log)]);
      return evaluator.evaluate(rows, req, ctx);
    });
