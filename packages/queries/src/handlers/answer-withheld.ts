import type { EventBus } from '@lore/kit/bus';
import { AnswerWithheld } from '@lore/schema/queries';
import type { Delivery } from '../domain/delivery.js';

/** A peer declined or had no knowledge: the asker's node records it for that peer. */
export const onAnswerWithheld = (delivery: Delivery, nodeId: string) => (bus: EventBus) => {
  const consumer = `queries-withheld-${nodeId}`;
  return bus.on(AnswerWithheld, consumer, (payload, event) =>
    delivery.answerWithheld(payload, event, consumer),
  );
};
