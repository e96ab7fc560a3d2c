import {
  BaseConfigSchema,
  databaseSettings,
  EmbeddingsSettings,
  envInt,
  LlmSettings,
  settingsOf,
} from '@lore/kit';
import { z } from 'zod';

/** What the queries service reads besides the kit's base settings. */
export const QueriesSettings = z.object({
  ...databaseSettings('queries'),
  ...LlmSettings,
  /** The embedder behind finding a summarized question by meaning (LORE_EMBEDDINGS=local|off|<url>). */
  ...EmbeddingsSettings,
  LORE_QUERY_TTL_HOURS: envInt(72),
  /**
   * Questions one asker may have waiting for one peer (sent, not answered, declined or expired):
   * past this, asking that peer again is refused with 429, so nobody can flood an owner's inbox.
   */
  LORE_WAITING_PER_ASKER: z.coerce.number().int().min(1).default(20),
  /** How long a received query's drafting or evaluation is retried before it is marked undeliverable. */
  LORE_DELIVERY_RETRY_MINUTES: z.coerce.number().positive().default(15),
  /** The longest wait between two retries (the wait doubles from one second up to this). */
  LORE_DELIVERY_RETRY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(60),
});
export type QueriesSettings = z.infer<typeof QueriesSettings>;

/** Everything a standalone queries service reads from the environment. */
export const QueriesConfigSchema = BaseConfigSchema.extend(QueriesSettings.shape);
export type QueriesConfig = z.infer<typeof QueriesConfigSchema>;

/** The queries service's own settings out of the configuration it was given. */
export const queriesSettings = (config: object): QueriesSettings => settingsOf(QueriesSettings, config);
