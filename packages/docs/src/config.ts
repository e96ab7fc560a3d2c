import { IngestSettings } from '@lore/ingest';
import {
  BaseConfigSchema,
  databaseSettings,
  EmbeddingsSettings,
  envBool,
  envInt,
  LlmSettings,
  settingsOf,
} from '@lore/kit';
import { z } from 'zod';

/** What the docs service reads besides the kit's base settings. */
export const DocsSettings = z.object({
  ...databaseSettings('docs'),
  ...LlmSettings,
  ...EmbeddingsSettings,
  ...IngestSettings,
  /** Handles (comma-separated) that may ingest documentation corpora through docs_ingest. */
  LORE_DOCS_OPERATORS: z.string().optional(),
  LORE_ANSWER_QUOTA_PER_MINUTE: envInt(10),
  LORE_ANSWER_QUOTA_PER_DAY: envInt(50),
  /** Ingest Lore's own documentation at start. */
  LORE_INGEST_OWN_DOCS: envBool.default(true),
  /**
   * A Lore checkout whose READMEs are the corpus `lore`, for a docs service run alone (`pnpm dev`
   * sets it); the all-in-one finds its own checkout.
   */
  LORE_DOCS_OWN_ROOT: z.string().min(1).optional(),
  /** Let the crawler fetch private and loopback addresses. */
  LORE_CRAWL_ALLOW_PRIVATE: envBool.default(false),
});
export type DocsSettings = z.infer<typeof DocsSettings>;

/** Everything a standalone docs service reads from the environment. */
export const DocsConfigSchema = BaseConfigSchema.extend(DocsSettings.shape);
export type DocsConfig = z.infer<typeof DocsConfigSchema>;

/** The docs service's own settings out of the configuration it was given. */
export const docsSettings = (config: object): DocsSettings => settingsOf(DocsSettings, config);
