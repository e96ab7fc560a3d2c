import { BaseConfigSchema, databaseSettings, LlmSettings, settingsOf } from '@lore/kit';
import { z } from 'zod';

/** What the approvals service reads besides the kit's base settings. */
export const ApprovalsSettings = z.object({
  ...databaseSettings('approvals'),
  ...LlmSettings,
});
export type ApprovalsSettings = z.infer<typeof ApprovalsSettings>;

/** Everything a standalone approvals service reads from the environment. */
export const ApprovalsConfigSchema = BaseConfigSchema.extend(ApprovalsSettings.shape);
export type ApprovalsConfig = z.infer<typeof ApprovalsConfigSchema>;

/** The approvals service's own settings out of the configuration it was given. */
export const approvalsSettings = (config: object): ApprovalsSettings => settingsOf(ApprovalsSettings, config);
