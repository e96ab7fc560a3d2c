import { RemoveConditionInput, RemoveConditionOutput } from '@lore/schema/approvals';
import { tool } from '../ports.js';

export const cqRemoveAutoApprovalCondition = tool({
  name: 'cqRemoveAutoApprovalCondition',
  title: 'Remove an auto-approval condition',
  description:
    'Removes one of your auto-approval conditions, given its exact text as cqListAutoApprovalConditions shows it. ' +
    'An unknown text is an error that names your closest condition.',
  input: RemoveConditionInput,
  output: RemoveConditionOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler({ condition }, { ports, agent }) {
    const row = await ports.conditions.remove(agent.id, condition);
    const content = `Condition '${row.sentence}' removed successfully.`;
    return { text: content, data: { content, condition: row.sentence } };
  },
});
