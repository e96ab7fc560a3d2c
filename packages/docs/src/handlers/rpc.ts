import { answer, type EventBus } from '@lore/kit/bus';
import { statsRpc } from '@lore/schema/stats';
import type { DocsStore } from '../domain/store.js';
import type { CallCounter } from '../ports.js';

/** `statsRpc('docs')`: the corpus size and how much it is used, for platform statistics. */
export const rpcHandlers = (store: DocsStore, calls: CallCounter) => [
  (bus: EventBus) =>
    answer(bus, statsRpc('docs'), async ({ since }) => {
      const sinceMs = Date.parse(since);
      const counts = await store.counts();
      return {
        service: 'docs',
        figures: {
          documents: counts.documents,
          chunks: counts.chunks,
          dataSources: counts.dataSources,
          calls: calls.total(),
          callsToday: Number.isFinite(sinceMs) ? calls.since(sinceMs) : 0,
          callsByTool: calls.byTool(),
        },
      };
    }),
];
