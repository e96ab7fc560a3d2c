import { DecideQueryOutput, RejectQueryInput } from '@lore/schema/queries';
import { decideManually } from '../domain/manual.js';
import { tool } from '../ports.js';

export const cqRejectQuery = tool({
  name: 'cqRejectQuery',
  title: 'Reject a query',
  description:
    "Marks a pending query as 'rejected' and notifies the requester (that you declined, not why). Only queries addressed " +
    'to you, only while pending. An optional reason is kept in your decision log.',
  input: RejectQueryInput,
  output: DecideQueryOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateClass: 'write',
  async handler({ id, reason }, { ports, agent }) {
    const r = await decideManually(
      ports,
      agent,
      id,
      'rejected',
      reason ? `Rejected by @${agent.handle}: ${reason}` : `Rejected by @${agent.handle}.`,
    );
    const content = `Question '${r.question}' has been rejected.`;
    return {
      text: `${content} @${r.askerHandle} was told you declined.`,
      data: { content, id: r.queryId, status: 'rejected' as const },
    };
  },
});
