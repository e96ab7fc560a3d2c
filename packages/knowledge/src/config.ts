import { EmbeddingsSettings } from '@lore/embed';
import { IngestSettings } from '@lore/ingest';
import { BaseConfigSchema, databaseSettings, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the knowledge service reads besides the kit's base settings. */
export const KnowledgeSettings = z.object({
  ...databaseSettings('knowledge'),
  ...EmbeddingsSettings,
  ...IngestSettings,
  /** Directories a source's file_path may read from; unset, file_path is refused. */
  LORE_KNOWLEDGE_ROOTS: z.string().optional(),
});
export type KnowledgeSettings = z.infer<typeof KnowledgeSettings>;

/** Everything a standalone knowledge service reads from the environment. */
export const KnowledgeConfigSchema = BaseConfigSchema.extend(KnowledgeSettings.shape);
export type KnowledgeConfig = z.infer<typeof KnowledgeConfigSchema>;

/** The knowledge service's own settings out of the configuration it was given. */
export const knowledgeSettings = (config: object): KnowledgeSettings => settingsOf(KnowledgeSettings, config);
