import type { EventBus } from '@lore/kit/bus';
import { KnowledgeSourceRemoved } from '@lore/schema/knowledge-events';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-source-topics-removed';

/** A removed knowledge source no longer describes its owner. */
export const onSourceRemoved = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(KnowledgeSourceRemoved, consumer, async (p, event) => {
    await log.removeTopics(consumer, event, { agentId: p.agentId, source: p.source });
  });
