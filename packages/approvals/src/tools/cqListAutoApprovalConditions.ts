import { plural } from '@lore/kit';
import { ListConditionsInput, ListConditionsOutput } from '@lore/schema/approvals';
import { tool } from '../ports.js';

export const cqListAutoApprovalConditions = tool({
  name: 'cqListAutoApprovalConditions',
  title: 'List your auto-approval conditions',
  description:
    'Your auto-approval conditions, oldest first, each with how it is understood (allow or deny, which senders and topics).',
  input: ListConditionsInput,
  output: ListConditionsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(_input, { ports, agent }) {
    const rows = await ports.conditions.list(agent.id);
    const details = rows.map((r) => ({
      condition: r.sentence,
      added_at: new Date(r.createdAt).toISOString(),
      understood_as: ports.evaluator.understand(r.interpretation),
    }));
    const conditions = rows.map((r) => r.sentence);
    const text = rows.length
      ? `${plural(rows.length, 'auto-approval condition')}, oldest first:\n` +
        details
          .map((d, i) => `${i + 1}. ${d.condition}\n   Understood as: ${d.understood_as.summary}`)
          .join('\n')
      : 'No auto-approval conditions: every query addressed to you waits for cqAcceptQuery or cqRejectQuery. Add one with cqAddAutoApprovalCondition.';
    return { text, data: { conditions, details } };
  },
});
