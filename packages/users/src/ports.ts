import { toolsFor } from '@lore/kit';
import type { ActivityLog } from './domain/activity.js';
import type { AgentRepository } from './domain/agents.js';
import type { ConnectionRepository } from './domain/connections.js';
import type { Directory } from './domain/directory.js';
import type { StatsGatherer } from './domain/platform-stats.js';

export interface UsersPorts {
  agents: AgentRepository;
  connections: ConnectionRepository;
  directory: Directory;
  activity: ActivityLog;
  stats: StatsGatherer;
  activeWindowMs: number;
  /** This node: agents hosted elsewhere are marked with theirs. */
  nodeId: string;
  now: () => number;
}

export const tool = toolsFor<UsersPorts>();
