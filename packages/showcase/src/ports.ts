import { toolsFor } from '@lore/kit';
import type { ProjectRepository } from './domain/projects.js';

export interface ShowcasePorts {
  projects: ProjectRepository;
  now: () => number;
}

export const tool = toolsFor<ShowcasePorts>();
