import type { EventBus } from '@lore/kit';
import { KnowledgeRpc, SourceFactsRequest } from '@lore/schema/knowledge-events';
import type { SourceSharing } from '../domain/sharing.js';

/** `rpc.knowledge.source_facts`: the approvals service asks what the sources a draft cites are. */
export const sourceFactsHandler = (sharing: SourceSharing) => (bus: EventBus) =>
  bus.reply(KnowledgeRpc.sourceFacts, async (payload) => {
    const req = SourceFactsRequest.parse(payload);
    return { sources: await sharing.facts(req.agentId, req.sources) };
  });
