import { answer, type EventBus } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema/knowledge-events';
import type { KnowledgeBase } from '../domain/knowledge-base.js';
import type { SourceSharing } from '../domain/sharing.js';

/** Most passages asked of the search, so that private ones left out do not empty the answer. */
const OVERFETCH = 50;

/**
 * `KnowledgeRpc.retrieve`: an agent's best passages for a question, relevant ones first. The
 * queries service drafts an answer only from passages marked relevant; none means no draft.
 * It is asked only to draft answers for others, so passages of `private` sources are never
 * returned, and every passage says its source's sharing.
 */
export const retrieveHandler = (knowledge: KnowledgeBase, sharing: SourceSharing) => (bus: EventBus) =>
  answer(bus, KnowledgeRpc.retrieve, async (req) => {
    const r = await knowledge.search(req.agentId, req.query, {
      limit: Math.min(OVERFETCH, req.limit * 3),
      relevantFirst: true,
    });
    const shares = await sharing.sharingOf(
      req.agentId,
      r.passages.map((p) => p.source),
    );
    const passages = r.passages
      .flatMap((p) => {
        const s = shares.get(p.source);
        // A source removed between search and look-up, or private, is not drafted from.
        if (s !== 'auto' && s !== 'manual') return [];
        return [
          {
            id: p.id,
            source: p.source,
            text: p.text,
            headingPath: p.headingPath,
            score: p.score,
            relevant: p.relevant,
            sharing: s,
            foundBy: p.foundBy,
            ...(p.similarity !== undefined ? { similarity: p.similarity } : {}),
            excerpt: p.excerpt,
          },
        ];
      })
      .sort((a, b) => Number(b.relevant) - Number(a.relevant))
      .slice(0, req.limit);
    return { passages };
  });
