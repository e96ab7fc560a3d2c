import { type EventBus, preview } from '@lore/kit';
import { DenPostCreated } from '@lore/schema';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-den-posts';

/** A post in a den is recent activity of its author. */
export const onPostCreated = (log: ActivityLog) => (bus: EventBus) =>
  bus.subscribe({ consumer, subjects: [DenPostCreated.subject] }, async (event) => {
    const p = DenPostCreated.payload.safeParse(event.payload);
    if (!p.success) return;
    const { agentId, den, title } = p.data;
    const summary = `Posted in m/${den}${title ? `: "${preview(title, 60)}"` : ''}`;
    await log.record(consumer, event, [{ agentId, kind: 'post', summary }]);
  });
