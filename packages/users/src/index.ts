export { AgentRepository, toProfile } from './domain/agents.js';
export { describeAgent } from './domain/descriptions.js';
export type { UsersPorts } from './ports.js';
export { createUsersService, USERS_VERSION, usersTools } from './service.js';
