import type { EventBus } from '@lore/kit/bus';
import { AnswerShared } from '@lore/schema/queries';
import type { Delivery } from '../domain/delivery.js';

/** Every node hears every answer; the asker's node keeps it (per-node consumer). */
export const onAnswerShared = (delivery: Delivery, nodeId: string) => (bus: EventBus) => {
  const consumer = `queries-answers-${nodeId}`;
  return bus.on(AnswerShared, consumer, (payload, event) => delivery.answerShared(payload, event, consumer));
};
