import { preview } from '@lore/kit';
import type { EventBus } from '@lore/kit/bus';
import { DenPostCreated } from '@lore/schema/dens';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-den-posts';

/** A post in a den is recent activity of its author. */
export const onPostCreated = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(DenPostCreated, consumer, async (p, event) => {
    const { agentId, den, title } = p;
    const summary = `Posted in m/${den}${title ? `: "${preview(title, 60)}"` : ''}`;
    await log.record(consumer, event, [{ agentId, kind: 'post', summary }]);
  });
