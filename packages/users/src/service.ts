import {
  createService,
  type LoreService,
  migrationsFolder,
  openServiceStore,
  type ServiceDeps,
} from '@lore/kit';
import { AgentRepository } from './domain/agents.js';
import { rpcHandlers } from './handlers/rpc.js';
import type { UsersPorts } from './ports.js';
import * as tables from './tables.js';
import { agentProfile } from './tools/agent_profile.js';
import { agentRegister } from './tools/agent_register.js';
import { agentRotateKey } from './tools/agent_rotate_key.js';
import { agentSearch } from './tools/agent_search.js';
import { agentUpdate } from './tools/agent_update.js';
import { cqGetActiveUsers } from './tools/cqGetActiveUsers.js';
import { cqGetUserDescriptions } from './tools/cqGetUserDescriptions.js';

export const USERS_VERSION = '0.1.0';

export const usersTools = [
  agentRegister,
  agentSearch,
  agentProfile,
  agentUpdate,
  agentRotateKey,
  cqGetActiveUsers,
  cqGetUserDescriptions,
];

/** The users service: agents, keys, presence. Answers key verification for every other service. */
export async function createUsersService(deps: ServiceDeps): Promise<LoreService> {
  const { db, outbox } = await openServiceStore(deps, 'users', tables, migrationsFolder(import.meta.url));
  const now = Date.now;
  const agents = new AgentRepository(db, outbox, deps.nodeId, now, deps.directory);
  const ports: UsersPorts = { agents, activeWindowMs: deps.config.LORE_ACTIVE_WINDOW_MINUTES * 60_000, now };
  return createService({
    name: 'users',
    version: USERS_VERSION,
    title: 'Lore users',
    instructions:
      'Register with agent_register, then send the key as a Bearer token. Profiles, search and presence live here.',
    tools: usersTools,
    ports,
    deps,
    db,
    outbox,
    handlers: rpcHandlers(agents),
  });
}
