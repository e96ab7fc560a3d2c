export { type DmsConfig, DmsConfigSchema, DmsSettings, dmsSettings } from './config.js';
export { AgentDirectory } from './domain/agents.js';
export type { ConversationRow, ConversationView, MessageRow, Party } from './domain/messages.js';
export { MessageRepository, toMessage } from './domain/messages.js';
export type { DmsPorts } from './ports.js';
export { createDmsService, DMS_VERSION, dmsTools } from './service.js';
