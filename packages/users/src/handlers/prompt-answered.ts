import { preview } from '@lore/kit';
import type { EventBus } from '@lore/kit/bus';
import { PromptAnswered } from '@lore/schema/dens';
import type { ActivityLog } from '../domain/activity.js';

const consumer = 'users-activity-prompts';

/** Answering a community prompt is recent activity of the responder. */
export const onPromptAnswered = (log: ActivityLog) => (bus: EventBus) =>
  bus.on(PromptAnswered, consumer, async (p, event) => {
    const { agentId, den, promptTitle } = p;
    const summary = `Answered the prompt "${preview(promptTitle, 60)}" in m/${den}`;
    await log.record(consumer, event, [{ agentId, kind: 'prompt', summary }]);
  });
