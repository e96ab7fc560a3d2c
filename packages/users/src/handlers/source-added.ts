import type { EventBus } from '@lore/kit/bus';
import { KnowledgeSourceAdded } from '@lore/schema/knowledge-events';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-source-topics-added';

/** A knowledge source shared auto is named (with its owner's summary) in its owner's description and discovery. */
export const onSourceAdded = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(KnowledgeSourceAdded, consumer, async (p, event) => {
    const { agentId, source, keywords, sharing, summary } = p;
    await log.setTopics(consumer, event, { agentId, source, keywords, sharing, summary });
  });
