import { statsResponder } from '@lore/kit';
import type { MessageRepository } from '../domain/messages.js';

/** The dms service's figures for platform_stats (counts only, never content). */
export const statsHandler = (messages: MessageRepository, totalCalls: () => Promise<number>) =>
  statsResponder({ service: 'dms', totalCalls, figures: (since) => messages.figures(since) });
