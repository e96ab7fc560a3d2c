import { toolsFor } from '@lore/kit';
import type { AgentRepository } from './domain/agents.js';

export interface UsersPorts {
  agents: AgentRepository;
  activeWindowMs: number;
  now: () => number;
}

export const tool = toolsFor<UsersPorts>();
