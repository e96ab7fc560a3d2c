export { AgentRepository, toProfile } from './domain/agents.js';
export { describeAgent } from './domain/descriptions.js';
export { USERS_VERSION, createUsersService, usersTools } from './service.js';
export type { UsersPorts } from './ports.js';
