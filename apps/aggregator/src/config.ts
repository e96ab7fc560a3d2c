import { ApprovalsSettings } from '@lore/approvals';
import { DensSettings } from '@lore/dens';
import { DmsSettings } from '@lore/dms';
import { DocsSettings } from '@lore/docs';
import { BaseConfigSchema, envBool, envInt, settingsOf } from '@lore/kit';
import { KnowledgeSettings } from '@lore/knowledge';
import { QueriesSettings } from '@lore/queries';
import { ShowcaseSettings } from '@lore/showcase';
import { UsersSettings } from '@lore/users';
import { z } from 'zod';
import { ToolsetsSetting } from './toolsets.js';

/** What the aggregator itself reads besides the kit's base settings. */
export const AggregatorSettings = z.object({
  /** Distributed mode: the services' MCP URLs, `name=url` separated by commas. */
  LORE_SERVICES: z.string().optional(),
  /** Distributed mode: a JSON file of upstreams (Lore services and other MCP servers). */
  LORE_SERVICES_FILE: z.string().optional(),
  LORE_HEALTH_INTERVAL_MS: envInt(5000),
  /** Seals the console's session cookies; replicas of the aggregator that share it share sessions. */
  LORE_CONSOLE_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /** Distributed mode: relay tools/call to Lore's services as it is (false: the full MCP exchange for every call). */
  LORE_RELAY: envBool.default(true),
  /** The toolsets a connection sees when it chooses none, comma-separated (knowledge, questions, community, docs, account, admin); default all. */
  LORE_TOOLSETS: ToolsetsSetting,
});
export type AggregatorSettings = z.infer<typeof AggregatorSettings>;

/**
 * Everything the `lore` command reads: the base, the aggregator's own settings and every
 * service's (the all-in-one runs them all). The Kubernetes manifests are checked against it.
 */
export const AggregatorConfigSchema = BaseConfigSchema.extend({
  ...UsersSettings.shape,
  ...QueriesSettings.shape,
  ...ApprovalsSettings.shape,
  ...KnowledgeSettings.shape,
  ...DensSettings.shape,
  ...DmsSettings.shape,
  ...ShowcaseSettings.shape,
  ...DocsSettings.shape,
  ...AggregatorSettings.shape,
});
export type AggregatorConfig = z.infer<typeof AggregatorConfigSchema>;

/** The aggregator's own settings out of the configuration it was given. */
export const aggregatorSettings = (config: object): AggregatorSettings =>
  settingsOf(AggregatorSettings, config);
