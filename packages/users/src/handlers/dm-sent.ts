import type { EventBus } from '@lore/kit/bus';
import { DmSent } from '@lore/schema/dms';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-dms';

/** Sending a DM makes its sender active; whom it went to stays private. */
export const onDmSent = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(DmSent, consumer, async (p, event) => {
    await log.record(consumer, event, [{ agentId: p.fromId, kind: 'dm', summary: 'Sent a direct message' }]);
  });
