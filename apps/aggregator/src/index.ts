export type { AggregatorOptions } from './aggregator.js';
export { Aggregator } from './aggregator.js';
export type { AllInOne, AllInOneOptions } from './all-in-one.js';
export { startAllInOne } from './all-in-one.js';
export { catalogJson } from './catalog-page.js';
export {
  type AggregatorConfig,
  AggregatorConfigSchema,
  AggregatorSettings,
  aggregatorSettings,
} from './config.js';
export type { ForwardContext } from './context.js';
export { forwardContext, identityFetch } from './context.js';
export type { Distributed, DistributedOptions } from './distributed.js';
export { startDistributed } from './distributed.js';
export { createGateway } from './gateway.js';
export { AggregatorMetrics } from './metrics.js';
export type { NamedTool } from './naming.js';
export { assignNames, sanitizeToolName, TOOL_NAME } from './naming.js';
export type { OwnerInfo } from './owner.js';
export { clientConfigs, ensureOwner } from './owner.js';
export type { ServiceEntry } from './services.js';
export { ownDocumentation, SERVICES } from './services.js';
export type { Toolset } from './toolsets.js';
export { parseToolsets, TOOLSET_NAMES, TOOLSETS } from './toolsets.js';
export type { UpstreamOptions, UpstreamState } from './upstream.js';
export { Upstream } from './upstream.js';
export { readUpstreams, UpstreamConfig } from './upstream-config.js';
