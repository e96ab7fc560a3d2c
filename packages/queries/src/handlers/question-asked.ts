import type { EventBus } from '@lore/kit/bus';
import { QuestionAsked } from '@lore/schema/queries';
import type { Intake } from '../domain/intake.js';

/**
 * Every node hears every question (the consumer name carries the node id) and drafts for the
 * recipients it hosts.
 */
export const onQuestionAsked = (intake: Intake) => (bus: EventBus) =>
  bus.on(QuestionAsked, intake.consumer, (question, event) => intake.handle(question, event));
