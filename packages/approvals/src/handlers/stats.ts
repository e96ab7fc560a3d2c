import type { EventBus } from '@lore/kit';
import { StatsRequest, statsSubject } from '@lore/schema';
import type { ConditionRepository } from '../domain/conditions.js';
import type { DecisionRepository } from '../domain/decisions.js';

/** This node's approval figures, for platform_stats. */
export const statsHandler = (conditions: ConditionRepository, decisions: DecisionRepository) => (bus: EventBus) =>
  bus.reply(statsSubject('approvals'), async (payload) => {
    const since = Date.parse(StatsRequest.parse(payload).since);
    return { service: 'approvals', figures: { ...(await conditions.stats()), ...(await decisions.stats(Number.isNaN(since) ? 0 : since)) } };
  });
