import type { EventBus } from '@lore/kit';
import { KnowledgeRetrieveRequest, KnowledgeRpc } from '@lore/schema';
import type { KnowledgeBase } from '../domain/knowledge-base.js';

/**
 * `rpc.knowledge.retrieve`: an agent's best passages for a question, relevant ones first. The
 * queries service drafts an answer only from passages marked relevant; none means no draft.
 */
export const retrieveHandler = (knowledge: KnowledgeBase) => (bus: EventBus) =>
  bus.reply(KnowledgeRpc.retrieve, async (payload) => {
    const req = KnowledgeRetrieveRequest.parse(payload);
    const r = await knowledge.search(req.agentId, req.query, { limit: req.limit, relevantFirst: true });
    const passages = r.passages
      .map((p) => ({
        id: p.id,
        source: p.source,
        text: p.text,
        headingPath: p.headingPath,
        score: p.score,
        relevant: p.relevant,
      }))
      .sort((a, b) => Number(b.relevant) - Number(a.relevant));
    return { passages };
  });
