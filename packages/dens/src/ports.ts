import { toolsFor } from '@lore/kit';
import type { VerifiedAgent } from '@lore/schema/users';
import type { DenRepository } from './domain/dens.js';
import type { PromptRepository } from './domain/prompts.js';

export interface DensPorts {
  dens: DenRepository;
  prompts: PromptRepository;
  /** The operator of this node may publish prompts in any den. */
  isOperator: (agent: VerifiedAgent) => boolean;
  now: () => number;
}

export const tool = toolsFor<DensPorts>();
