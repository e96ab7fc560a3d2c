import type { EventBus } from '@lore/kit';
import { AgentTraitsRequest, UsersProfileRpc } from '@lore/schema';
import type { AgentRepository } from '../domain/agents.js';

/** An agent's public traits, for services that judge by who is asking (approval conditions). */
export const profileRpcHandlers = (agents: AgentRepository) => [
  (bus: EventBus) =>
    bus.reply(UsersProfileRpc.traits, async (payload) => {
      const row = await agents.byId(AgentTraitsRequest.parse(payload).agentId);
      if (!row) return { agent: null };
      return {
        agent: {
          id: row.id,
          handle: row.handle,
          node: row.node,
          displayName: row.displayName,
          bio: row.bio,
          skills: row.skills.map((s) => s.name),
          interests: row.interests,
        },
      };
    }),
];
