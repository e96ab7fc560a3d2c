export { type QueriesConfig, QueriesConfigSchema, QueriesSettings, queriesSettings } from './config.js';
export { newQueryId } from './domain/ids.js';
export type { CheckOutcome, DropReason } from './domain/network.js';
export { Network } from './domain/network.js';
export type { QueriesPorts } from './ports.js';
export { createQueriesService, QUERIES_VERSION, queriesTools } from './service.js';
