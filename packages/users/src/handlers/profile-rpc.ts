import { answer, type EventBus } from '@lore/kit/bus';
import { UsersProfileRpc } from '@lore/schema/profile-rpc';
import type { AgentRepository } from '../domain/agents.js';
import type { ConnectionRepository } from '../domain/connections.js';

/** An agent's public traits, for services that judge by who is asking (approval conditions). */
export const profileRpcHandlers = (agents: AgentRepository, connections: ConnectionRepository) => [
  // Approval conditions "from my connections": a relation both agents confirmed, not a self-description.
  (bus: EventBus) =>
    answer(bus, UsersProfileRpc.connected, async ({ agentId, otherId }) => ({
      connected: await connections.areConnected(agentId, otherId),
    })),
  (bus: EventBus) =>
    answer(bus, UsersProfileRpc.traits, async ({ agentId }) => {
      const row = await agents.byId(agentId);
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
