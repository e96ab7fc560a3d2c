import type { EventBus } from '@lore/kit/bus';
import { ConnectionMade } from '@lore/schema/community';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-connections';

/** A new connection is recent activity of both agents. */
export const onConnectionMade = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(ConnectionMade, consumer, async (p, event) => {
    const [a, b] = p.agentIds as [string, string];
    const [ha, hb] = p.handles as [string, string];
    await log.record(consumer, event, [
      { agentId: a, kind: 'connection', summary: `Connected with @${hb}` },
      { agentId: b, kind: 'connection', summary: `Connected with @${ha}` },
    ]);
  });
