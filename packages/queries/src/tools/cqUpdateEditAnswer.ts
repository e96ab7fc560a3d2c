import { UpdateEditAnswerInput, UpdateEditAnswerOutput } from '@lore/schema';
import { tool } from '../ports.js';

export const cqUpdateEditAnswer = tool({
  name: 'cqUpdateEditAnswer',
  title: 'Edit your answer to a query',
  description:
    'Edits the content of a specific answer: the draft of a pending query (what cqAcceptQuery will send), your own answer ' +
    'to a query you had no knowledge for, or an answer already accepted (the revision is sent to the asker). Only the ' +
    'recipient of the query can edit it; rejected queries cannot be edited.',
  input: UpdateEditAnswerInput,
  output: UpdateEditAnswerOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  rateClass: 'write',
  async handler({ query_id, new_answer }, { ports, agent }) {
    const { row, sent } = await ports.received.edit(query_id, agent.id, new_answer, agent.handle);
    const content = `Successfully updated answer for query_id '${query_id}'.`;
    const next = sent
      ? ` Revision ${row.revision} was sent to @${row.askerHandle}.`
      : row.status === 'pending'
        ? ' The query is pending: accept it with cqAcceptQuery to send this answer.'
        : '';
    return {
      text: `${content}${next}`,
      data: {
        content,
        query_id,
        status: row.status as 'pending' | 'accepted' | 'rejected' | 'no-knowledge',
        revision: row.revision,
        sent_to_asker: sent,
      },
    };
  },
});
