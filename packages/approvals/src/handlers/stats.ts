import { statsResponder } from '@lore/kit';
import type { ConditionRepository } from '../domain/conditions.js';

/** This node's condition figures (and calls today), for platform_stats; decisions are the queries service's. */
export const statsHandler = (conditions: ConditionRepository, totalCalls: () => Promise<number>) =>
  statsResponder({
    service: 'approvals',
    totalCalls,
    figures: async () => conditions.stats(),
  });
