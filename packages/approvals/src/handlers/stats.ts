import { statsResponder } from '@lore/kit';
import type { ConditionRepository } from '../domain/conditions.js';
import type { DecisionRepository } from '../domain/decisions.js';

/** This node's approval figures (and calls today), for platform_stats. */
export const statsHandler = (
  conditions: ConditionRepository,
  decisions: DecisionRepository,
  totalCalls: () => Promise<number>,
) =>
  statsResponder({
    service: 'approvals',
    totalCalls,
    figures: async (since) => ({ ...(await conditions.stats()), ...(await decisions.stats(since)) }),
  });
