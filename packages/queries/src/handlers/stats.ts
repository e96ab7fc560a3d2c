import type { EventBus } from '@lore/kit';
import { StatsRequest, statsSubject } from '@lore/schema';
import type { QuestionRepository } from '../domain/questions.js';
import type { ReceivedRepository } from '../domain/received.js';

/** This node's query figures, for platform_stats. */
export const statsHandler = (questions: QuestionRepository, received: ReceivedRepository) => (bus: EventBus) =>
  bus.reply(statsSubject('queries'), async (payload) => {
    const since = Date.parse(StatsRequest.parse(payload).since);
    const t = Number.isNaN(since) ? 0 : since;
    return { service: 'queries', figures: { ...(await questions.stats(t)), ...(await received.stats(t)) } };
  });
