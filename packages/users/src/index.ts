import * as usersTables from './tables.js';

export { type UsersConfig, UsersConfigSchema, UsersSettings, usersSettings } from './config.js';
export { ActivityLog } from './domain/activity.js';
export { AgentRepository } from './domain/agents.js';
export { ConnectionRepository } from './domain/connections.js';
export { describeAgent } from './domain/descriptions.js';
export { Directory } from './domain/directory.js';
export type { Candidate, Component, Match } from './domain/discovery.js';
export {
  GOAL_WEIGHTS,
  rank,
  sameLabel,
  scoreCandidate,
  skillMatches,
  weightsFor,
} from './domain/discovery.js';
export { StatsGatherer, statsText, summarize } from './domain/platform-stats.js';
export { toProfile } from './domain/profile.js';
export type { UsersPorts } from './ports.js';
export { handleRegistered } from './registered.js';
export type { UsersServiceOptions } from './service.js';
export { createUsersService, USERS_VERSION, usersTools } from './service.js';
export { usersTables };
