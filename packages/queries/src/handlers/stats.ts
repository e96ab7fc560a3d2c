import { statsResponder } from '@lore/kit';
import type { QuestionRepository } from '../domain/questions.js';
import type { ReceivedRepository } from '../domain/received.js';

/** This node's query and decision figures (and calls today), for platform_stats. */
export const statsHandler = (
  questions: QuestionRepository,
  received: ReceivedRepository,
  totalCalls: () => Promise<number>,
) =>
  statsResponder({
    service: 'queries',
    totalCalls,
    figures: async (since) => ({
      ...(await questions.stats(since)),
      ...(await received.stats(since)),
      ...(await received.decisions.stats(since)),
    }),
  });
