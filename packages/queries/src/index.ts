export { newQueryId } from './domain/ids.js';
export { Network } from './domain/network.js';
export type { CheckOutcome, DropReason } from './domain/network.js';
export { QUERIES_VERSION, createQueriesService, queriesTools } from './service.js';
export type { QueriesPorts } from './ports.js';
