import type { EventBus } from '@lore/kit';
import { ListAgentsRequest, ResolveHandlesRequest, UsersRpc, VerifyKeyRequest } from '@lore/schema/users';
import type { AgentRepository } from '../domain/agents.js';

/** Questions other services ask the users service: whose key is this, who are these handles. */
export const rpcHandlers = (agents: AgentRepository) => [
  (bus: EventBus) =>
    bus.reply(UsersRpc.verifyKey, async (payload) => {
      const { keyHash } = VerifyKeyRequest.parse(payload);
      return { agent: await agents.verifyKey(keyHash) };
    }),
  (bus: EventBus) =>
    bus.reply(UsersRpc.resolveHandles, async (payload) =>
      agents.resolve(ResolveHandlesRequest.parse(payload).handles),
    ),
  (bus: EventBus) =>
    bus.reply(UsersRpc.listAgents, async (payload) => ({
      agents: await agents.listAll(ListAgentsRequest.parse(payload).excludeId),
    })),
];
