import type { EventBus } from '@lore/kit';
import { StatsReply, StatsRequest, statsSubject } from '@lore/schema/knowledge-events';
import type { DocsStore } from '../domain/store.js';
import type { CallCounter } from '../ports.js';

/** `rpc.docs.stats`: the corpus size and how much it is used, for platform statistics. */
export const rpcHandlers = (store: DocsStore, calls: CallCounter) => [
  (bus: EventBus) =>
    bus.reply(statsSubject('docs'), async (payload) => {
      const { since } = StatsRequest.parse(payload);
      const sinceMs = Date.parse(since);
      const counts = await store.counts();
      return StatsReply.parse({
        service: 'docs',
        figures: {
          documents: counts.documents,
          chunks: counts.chunks,
          dataSources: counts.dataSources,
          calls: calls.total(),
          callsToday: Number.isFinite(sinceMs) ? calls.since(sinceMs) : 0,
          callsByTool: calls.byTool(),
        },
      });
    }),
];
