import type { EventBus } from '@lore/kit';
import { type Database, handleOnce } from '@lore/kit';
import { QueryDecided } from '@lore/schema/queries';
import type { DecisionRepository } from '../domain/decisions.js';
import type * as tables from '../tables.js';

/**
 * The decision log follows the queries service of this node: each `query.decided` event is
 * recorded once (its inbox row). Decisions about agents hosted on other nodes are theirs to log.
 */
export const onQueryDecided =
  (db: Database<typeof tables>, decisions: DecisionRepository, nodeId: string) => (bus: EventBus) => {
    const consumer = `approvals-decisions-${nodeId}`;
    return bus.on(QueryDecided, consumer, async (decided, event) => {
      if (event.producer.node !== nodeId || event.producer.service !== 'queries') return;
      await handleOnce(db, consumer, event, (tx) => decisions.record(tx, decided, event.id));
    });
  };
