export { AgentDirectory } from './domain/agents.js';
export { MessageRepository, toMessage } from './domain/messages.js';
export type { ConversationRow, ConversationView, MessageRow, Party } from './domain/messages.js';
export { DMS_VERSION, createDmsService, dmsTools } from './service.js';
export type { DmsPorts } from './ports.js';
