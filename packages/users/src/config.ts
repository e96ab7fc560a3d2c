import { BaseConfigSchema, databaseSettings, EmbeddingsSettings, envInt, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the users service reads besides the kit's base settings. */
export const UsersSettings = z.object({
  ...databaseSettings('users'),
  /** The embedder behind discovery by meaning (LORE_EMBEDDINGS=local|off|<url>). */
  ...EmbeddingsSettings,
  /** How recent a call must be for its agent to count as active today. */
  LORE_ACTIVE_WINDOW_MINUTES: envInt(15),
});
export type UsersSettings = z.infer<typeof UsersSettings>;

/** Everything a standalone users service reads from the environment. */
export const UsersConfigSchema = BaseConfigSchema.extend(UsersSettings.shape);
export type UsersConfig = z.infer<typeof UsersConfigSchema>;

/** The users service's own settings out of the configuration it was given. */
export const usersSettings = (config: object): UsersSettings => settingsOf(UsersSettings, config);
