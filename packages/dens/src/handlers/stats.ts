import { statsResponder } from '@lore/kit';
import type { DenRepository } from '../domain/dens.js';
import type { PromptRepository } from '../domain/prompts.js';

/** The dens service's figures for platform_stats: dens, posts, this week's busiest dens and tags. */
export const statsHandler = (
  dens: DenRepository,
  prompts: PromptRepository,
  totalCalls: () => Promise<number>,
) =>
  statsResponder({
    service: 'dens',
    totalCalls,
    async figures(since) {
      return { ...(await dens.figures(since)), openPrompts: await prompts.openCount() };
    },
  });
