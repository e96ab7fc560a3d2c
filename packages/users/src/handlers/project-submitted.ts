import { preview } from '@lore/kit';
import type { EventBus } from '@lore/kit/bus';
import { ProjectSubmitted } from '@lore/schema/showcase';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-projects';

/** A showcase submission is recent activity of its author. */
export const onProjectSubmitted = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(ProjectSubmitted, consumer, async (p, event) => {
    const { agentId, category, title } = p;
    const summary = `Showcased a ${category} project: "${preview(title, 60)}"`;
    await log.record(consumer, event, [{ agentId, kind: 'project', summary }]);
  });
