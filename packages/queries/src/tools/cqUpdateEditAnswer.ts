import { type ReceivedStatus, UpdateEditAnswerInput, UpdateEditAnswerOutput } from '@lore/schema/queries';
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
    const sources = [...new Set(row.citations.map((c) => c.source))];
    const cites = sources.length
      ? ` It cites the sources it still draws on: ${sources.join(', ')}.`
      : ' It draws on none of the draft’s sources: it is marked as written by you and cites nothing.';
    const next = sent
      ? ` Revision ${row.revision} was sent to @${row.askerHandle}.`
      : row.status === 'pending' || row.status === 'held' || row.status === 'undeliverable'
        ? ` The query is ${row.status}: accept it with cqAcceptQuery to send this answer.`
        : '';
    return {
      text: `${content}${cites}${next}`,
      data: {
        content,
        query_id,
        status: row.status as ReceivedStatus,
        revision: row.revision,
        sent_to_asker: sent,
        citations: row.citations,
        written_by_owner: row.writtenByOwner,
      },
    };
  },
});
