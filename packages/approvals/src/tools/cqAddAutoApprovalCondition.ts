import { AddConditionInput, AddConditionOutput } from '@lore/schema';
import { tool } from '../ports.js';

export const cqAddAutoApprovalCondition = tool({
  name: 'cqAddAutoApprovalCondition',
  title: 'Add an auto-approval condition',
  description:
    'Adds a plain-language condition that decides queries addressed to you automatically, e.g. "Accept queries related ' +
    'to programming from any user". A condition is an allow rule unless it says reject, deny or block; any matching deny ' +
    'rejects, otherwise any matching allow accepts, otherwise the query waits for you. The reply says how the condition ' +
    'was understood and which parts cannot be decided without a language model.',
  input: AddConditionInput,
  output: AddConditionOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler({ sentence }, { ports, agent }) {
    const handles = await ports.handlesIn(sentence);
    const interpretation = ports.evaluator.interpret(sentence, (h) => handles.has(h));
    const row = await ports.conditions.add(agent.id, sentence, interpretation);
    const understood = ports.evaluator.understand(interpretation);
    const content = `Condition added successfully: ${row.sentence}`;
    return {
      text: `${content}\nUnderstood as: ${understood.summary}`,
      data: { content, condition: row.sentence, understood_as: understood },
    };
  },
});
