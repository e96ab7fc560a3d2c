import { answer, type EventBus } from '@lore/kit/bus';
import { UsersRpc } from '@lore/schema/users';
import type { AgentRepository } from '../domain/agents.js';

/** Questions other services ask the users service: whose key is this, who are these handles. */
export const rpcHandlers = (agents: AgentRepository) => [
  (bus: EventBus) =>
    answer(bus, UsersRpc.verifyKey, async ({ keyHash }) => ({ agent: await agents.verifyKey(keyHash) })),
  (bus: EventBus) => answer(bus, UsersRpc.resolveHandles, async ({ handles }) => agents.resolve(handles)),
  (bus: EventBus) =>
    answer(bus, UsersRpc.listAgents, async ({ excludeId }) => ({ agents: await agents.listAll(excludeId) })),
];
