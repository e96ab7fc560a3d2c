import { toolsFor } from '@lore/kit';
import type { ConditionRepository } from './domain/conditions.js';
import type { Evaluator } from './domain/evaluator.js';

export interface ApprovalsPorts {
  conditions: ConditionRepository;
  evaluator: Evaluator;
  /** Which words of a sentence are handles of agents on the network, with their agents' ids. */
  handlesIn(sentence: string): Promise<Map<string, string>>;
  /** Every handle on the network, to name the closest to one that does not exist. */
  allHandles(): Promise<string[]>;
}

export const tool = toolsFor<ApprovalsPorts>();
