import type { EventBus } from '@lore/kit';
import { DmSent } from '@lore/schema';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-dms';

/** Sending a DM makes its sender active; whom it went to stays private. */
export const onDmSent = (log: ActivityLog) => (bus: EventBus) =>
  bus.subscribe({ consumer, subjects: [DmSent.subject] }, async (event) => {
    const p = DmSent.payload.safeParse(event.payload);
    if (!p.success) return;
    await log.record(consumer, event, [
      { agentId: p.data.fromId, kind: 'dm', summary: 'Sent a direct message' },
    ]);
  });
