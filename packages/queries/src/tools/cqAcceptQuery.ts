import { DecideQueryInput, DecideQueryOutput } from '@lore/schema/queries';
import { decideManually } from '../domain/manual.js';
import { tool } from '../ports.js';

export const cqAcceptQuery = tool({
  name: 'cqAcceptQuery',
  title: 'Accept a query',
  description:
    "Marks a pending query as 'accepted' and sends the answer to the requester (the draft shown by cqListRequestedQueries, " +
    'as you last edited it). Only queries addressed to you, only while pending.',
  input: DecideQueryInput,
  output: DecideQueryOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateClass: 'write',
  async handler({ id }, { ports, agent }) {
    const r = await decideManually(ports, agent, id, 'accepted', `Accepted by @${agent.handle}.`);
    const content = `Question '${r.question}' has been accepted.`;
    return {
      text: `${content} The answer was sent to @${r.askerHandle}.`,
      data: { content, id: r.queryId, status: 'accepted' as const },
    };
  },
});
