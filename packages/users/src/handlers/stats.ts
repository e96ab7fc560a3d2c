import { statsResponder } from '@lore/kit';
import type { ConnectionRepository } from '../domain/connections.js';
import type { Directory } from '../domain/directory.js';

/** The users service's figures for platform_stats. */
export const statsHandler = (
  directory: Directory,
  connections: ConnectionRepository,
  totalCalls: () => Promise<number>,
) =>
  statsResponder({
    service: 'users',
    totalCalls,
    async figures(since) {
      const { registered, activeToday } = await directory.counts(since);
      return {
        agentsRegistered: registered,
        agentsActiveToday: activeToday,
        activeCollaborations: await connections.count(),
      };
    },
  });
