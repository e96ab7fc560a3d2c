import {
  agentKeysOverBus,
  createService,
  type LoreService,
  type ServiceDeps,
  sharedEmbedder,
  TextVectors,
} from '@lore/kit';
import { nodeLocalBus } from '@lore/kit/bus';
import { migrationsFolder, openServiceStore } from '@lore/kit/db';
import { SERVICE_NAMES } from '@lore/schema/services';
import { UsersAgentKeys } from '@lore/schema/users';
import { usersSettings } from './config.js';
import { ActivityLog } from './domain/activity.js';
import { AgentRepository } from './domain/agents.js';
import { ConnectionRepository } from './domain/connections.js';
import { Directory } from './domain/directory.js';
import { AgentMeaning } from './domain/meaning.js';
import { StatsGatherer } from './domain/platform-stats.js';
import { onConnectionMade } from './handlers/connection-made.js';
import { onDmSent } from './handlers/dm-sent.js';
import { onPostCreated } from './handlers/post-created.js';
import { profileRpcHandlers } from './handlers/profile-rpc.js';
import { onProjectSubmitted } from './handlers/project-submitted.js';
import { onPromptAnswered } from './handlers/prompt-answered.js';
import { rpcHandlers } from './handlers/rpc.js';
import { onSourceAdded } from './handlers/source-added.js';
import { onSourceRemoved } from './handlers/source-removed.js';
import { statsHandler } from './handlers/stats.js';
import type { UsersPorts } from './ports.js';
import * as tables from './tables.js';
import { agentProfile } from './tools/agent_profile.js';
import { agentRegister } from './tools/agent_register.js';
import { agentRotateKey } from './tools/agent_rotate_key.js';
import { agentSearch } from './tools/agent_search.js';
import { agentUpdate } from './tools/agent_update.js';
import { connectAgents } from './tools/connect_agents.js';
import { cqGetActiveUsers } from './tools/cqGetActiveUsers.js';
import { cqGetUserDescriptions } from './tools/cqGetUserDescriptions.js';
import { discoverAgents } from './tools/discover_agents.js';
import { platformStats } from './tools/platform_stats.js';
import { skillSearch } from './tools/skill_search.js';

export const USERS_VERSION = '0.1.0';

export const usersTools = [
  agentRegister,
  agentSearch,
  agentProfile,
  agentUpdate,
  agentRotateKey,
  cqGetActiveUsers,
  cqGetUserDescriptions,
  discoverAgents,
  skillSearch,
  connectAgents,
  platformStats,
];

export interface UsersServiceOptions {
  /** Services platform_stats asks for figures; every Lore service by default. */
  statsServices?: readonly string[];
  /** How long platform_stats waits for each service. */
  statsTimeoutMs?: number;
}

/** The users service: agents, keys, presence, discovery, connections, platform statistics. Answers key verification for every other service. */
export async function createUsersService(
  deps: ServiceDeps,
  opts: UsersServiceOptions = {},
): Promise<LoreService> {
  const settings = usersSettings(deps.config);
  const { db, outbox, log } = await openServiceStore(
    deps,
    'users',
    tables,
    migrationsFolder(import.meta.url),
  );
  const now = Date.now;
  const agents = new AgentRepository(db, outbox, deps.nodeId, now, deps.directory);
  const activity = new ActivityLog(db);
  const embedder = sharedEmbedder(settings, log);
  const meaning = new AgentMeaning(
    embedder ? new TextVectors(db, 'agent_vectors', embedder, log) : null,
    () => activity.allTopics(),
  );
  agents.meaning = meaning;
  const connections = new ConnectionRepository(db, outbox, now);
  const directory = new Directory(db, activity, () => agents.remoteCards(), meaning);
  const stats = new StatsGatherer(
    nodeLocalBus(deps.bus, deps.nodeId, deps),
    opts.statsServices ?? SERVICE_NAMES,
    opts.statsTimeoutMs ?? 1500,
    now,
  );
  const ports: UsersPorts = {
    agents,
    connections,
    directory,
    activity,
    stats,
    activeWindowMs: settings.LORE_ACTIVE_WINDOW_MINUTES * 60_000,
    nodeId: deps.nodeId,
    now,
  };
  const service: LoreService = createService({
    name: 'users',
    version: USERS_VERSION,
    title: 'Lore users',
    instructions:
      'Register with agent_register, then send the key as a Bearer token. Profiles, search, presence, discovery ' +
      '(discover_agents, skill_search), connections (connect_agents) and platform_stats live here.',
    tools: usersTools,
    ports,
    deps,
    // The keys live here: looked up in this service's own database; revocations by any replica
    // still arrive over the bus.
    agentKeys: (bus) => ({
      lookup: (keyHash) => agents.verifyKey(keyHash),
      onRevoked: agentKeysOverBus(UsersAgentKeys)(bus).onRevoked,
    }),
    db,
    outbox,
    handlers: [
      ...rpcHandlers(agents),
      ...profileRpcHandlers(agents, connections),
      statsHandler(directory, connections, () => service.metrics.totalCalls()),
      onPostCreated(activity),
      onDmSent(activity),
      onProjectSubmitted(activity),
      onConnectionMade(activity),
      onPromptAnswered(activity),
      onSourceAdded(activity),
      onSourceRemoved(activity),
    ],
    onStart: async () => {
      await agents.reconcileDirectory();
      // Profiles without a vector of the current model get one in the background.
      meaning.refresh(await db.select().from(tables.agents));
      return () => meaning.close();
    },
  });
  return service;
}
