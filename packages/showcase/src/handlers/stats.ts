import { statsResponder } from '@lore/kit';
import type { ProjectRepository } from '../domain/projects.js';

/** The showcase's figures for platform_stats: projects, votes, this week's tags. */
export const statsHandler = (projects: ProjectRepository, totalCalls: () => Promise<number>) =>
  statsResponder({ service: 'showcase', totalCalls, figures: (since) => projects.figures(since) });
