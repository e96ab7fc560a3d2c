import type { EventBus } from '@lore/kit';
import { KnowledgeSourceRemoved } from '@lore/schema';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-source-topics-removed';

/** A removed knowledge source no longer describes its owner. */
export const onSourceRemoved = (log: ActivityLog) => (bus: EventBus) =>
  bus.subscribe({ consumer, subjects: [KnowledgeSourceRemoved.subject] }, async (event) => {
    const p = KnowledgeSourceRemoved.payload.safeParse(event.payload);
    if (!p.success) return;
    await log.removeTopics(consumer, event, { agentId: p.data.agentId, source: p.data.source });
  });
