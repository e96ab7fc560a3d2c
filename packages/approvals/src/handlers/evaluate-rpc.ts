import type { Logger } from '@lore/kit';
import { answer, call, type EventBus, type NodeLocalBus } from '@lore/kit/bus';
import { ApprovalsRpc, type EvaluateQueryRequest } from '@lore/schema/approvals';
import {
  KnowledgeRpc,
  type PassageFacts,
  type SourceFacts,
  type TopicMeaning,
} from '@lore/schema/knowledge-events';
import { UsersProfileRpc } from '@lore/schema/profile-rpc';
import type { ConditionRepository, ConditionRow } from '../domain/conditions.js';
import type { EvaluationContext, Evaluator } from '../domain/evaluator.js';
import { topicPhrase } from '../domain/meaning.js';
import { requestsOf } from '../domain/request.js';

/** How long the knowledge service may take to say what the cited sources and passages are. */
export const SOURCE_FACTS_TIMEOUT_MS = 15_000;

/**
 * The excerpts whose passages' classification the gate needs, each with its source. A producer
 * that sends no citations gets every excerpt looked for in every cited source: one found in none
 * comes back unclassified and holds the answer.
 */
function citedExcerpts(req: EvaluateQueryRequest): Array<{ source: string; text: string }> {
  const pairs = req.draft.citations.length
    ? req.draft.citations.map((c) => ({ source: c.source, text: c.excerpt }))
    : req.draft.excerpts.flatMap((text) =>
        [...new Set(req.draft.sources)].map((source) => ({ source, text })),
      );
  return pairs.slice(0, 100);
}

/**
 * What the evaluator needs to know beyond the request, asked of this node's services: the cited
 * sources' sharing and topics (knowledge), whether the asker is a connection (users). A service
 * that does not answer leaves the fact unknown, which never releases anything.
 */
async function contextFor(
  req: EvaluateQueryRequest,
  conditions: ConditionRow[],
  bus: NodeLocalBus,
  log: Logger,
): Promise<EvaluationContext> {
  const names = [...new Set(req.draft.sources)].slice(0, 50);
  // The topics the conditions name, judged by meaning on what the draft would release.
  const topics = [...new Set(conditions.flatMap((c) => c.interpretation.topics.map(topicPhrase)))].slice(
    0,
    20,
  );
  let sources: SourceFacts[] | null = [];
  let passages: PassageFacts[] | null = [];
  let meaning: TopicMeaning | null | undefined;
  if (names.length)
    try {
      const r = await call(
        bus,
        KnowledgeRpc.sourceFacts,
        {
          agentId: req.recipient.id,
          sources: names,
          excerpts: citedExcerpts(req),
          topics,
          draft: req.draft.text.slice(0, 20_000),
          // An allow by meaning must cover what the question asks, not only what was drafted.
          requests: requestsOf(req.question)
            .slice(0, 20)
            .map((r) => r.slice(0, 2_000)),
        },
        // A cited passage not classified yet is classified on the spot, with the model when there is one.
        { timeoutMs: SOURCE_FACTS_TIMEOUT_MS },
      );
      sources = r.sources;
      passages = r.passages;
      meaning = r.meaning;
    } catch (err) {
      log.warn(
        { err: (err as Error).message, queryId: req.queryId },
        'source facts unavailable; answer held',
      );
      sources = null;
      passages = null;
      meaning = null;
    }
  return {
    sources,
    passages,
    ...(meaning !== undefined ? { meaning } : {}),
    async connected() {
      try {
        const r = await call(
          bus,
          UsersProfileRpc.connected,
          { agentId: req.recipient.id, otherId: req.asker.id },
          { timeoutMs: 3000 },
        );
        return r.connected;
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
    answer(bus, ApprovalsRpc.evaluate, async (req) => {
      const rows = await conditions.list(req.recipient.id);
      const ctx = await contextFor(req, rows, local, log);
      return evaluator.evaluate(rows, req, ctx);
    });
