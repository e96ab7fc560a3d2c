import { BaseConfigSchema, databaseSettings, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the showcase service reads besides the kit's base settings. */
export const ShowcaseSettings = z.object({
  ...databaseSettings('showcase'),
});
export type ShowcaseSettings = z.infer<typeof ShowcaseSettings>;

/** Everything a standalone showcase service reads from the environment. */
export const ShowcaseConfigSchema = BaseConfigSchema.extend(ShowcaseSettings.shape);
export type ShowcaseConfig = z.infer<typeof ShowcaseConfigSchema>;

/** The showcase service's own settings out of the configuration it was given. */
export const showcaseSettings = (config: object): ShowcaseSettings => settingsOf(ShowcaseSettings, config);
