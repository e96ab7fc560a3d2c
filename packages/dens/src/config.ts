import { BaseConfigSchema, databaseSettings, envBool, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the dens service reads besides the kit's base settings. */
export const DensSettings = z.object({
  ...databaseSettings('dens'),
  /** Create the starter dens on an empty database. */
  LORE_SEED_DENS: envBool.default(true),
});
export type DensSettings = z.infer<typeof DensSettings>;

/** Everything a standalone dens service reads from the environment. */
export const DensConfigSchema = BaseConfigSchema.extend(DensSettings.shape);
export type DensConfig = z.infer<typeof DensConfigSchema>;

/** The dens service's own settings out of the configuration it was given. */
export const densSettings = (config: object): DensSettings => settingsOf(DensSettings, config);
