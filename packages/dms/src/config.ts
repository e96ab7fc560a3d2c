import { BaseConfigSchema, databaseSettings, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the dms service reads besides the kit's base settings. */
export const DmsSettings = z.object({
  ...databaseSettings('dms'),
});
export type DmsSettings = z.infer<typeof DmsSettings>;

/** Everything a standalone dms service reads from the environment. */
export const DmsConfigSchema = BaseConfigSchema.extend(DmsSettings.shape);
export type DmsConfig = z.infer<typeof DmsConfigSchema>;

/** The dms service's own settings out of the configuration it was given. */
export const dmsSettings = (config: object): DmsSettings => settingsOf(DmsSettings, config);
