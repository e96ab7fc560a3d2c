import { ListAskedQuestionsInput, ListAskedQuestionsOutput } from '@lore/schema/queries';
import { answerView, peerLine, peerView, quote } from '../domain/views.js';
import { tool } from '../ports.js';

export const cqListAskedQuestions = tool({
  name: 'cqListAskedQuestions',
  title: 'List the questions you asked',
  description:
    'Your own questions, newest first, with every answer received and each peer’s status: sent (waiting), answered, ' +
    'declined, no-knowledge (the peer had nothing relevant), undeliverable (the peer’s node could not draft or judge it in ' +
    'time, with the reason), or expired (no answer within the time limit). Optionally ' +
    'only questions with a peer in a given status.',
  input: ListAskedQuestionsInput,
  output: ListAskedQuestionsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ status, limit, offset }, { ports, agent }) {
    const now = ports.now();
    const all = await ports.questions.listByAsker(agent.id);
    const withPeers = await Promise.all(
      all.map(async (q) => ({ q, peers: await ports.questions.peersSeenByAsker(q, now) })),
    );
    const matching = status ? withPeers.filter((x) => x.peers.some((p) => p.status === status)) : withPeers;
    const page = matching.slice(offset, offset + limit);
    const answers = await ports.questions.answersFor(page.map((x) => x.q.id));
    const questions = page.map(({ q, peers }) => ({
      id: q.id,
      question: q.question,
      asked_at: new Date(q.askedAt).toISOString(),
      expires_at: new Date(q.expiresAt).toISOString(),
      broadcast: q.broadcast,
      peers: peers.map(peerView),
      answers: answers.filter((a) => a.questionId === q.id).map(answerView),
    }));
    if (!questions.length)
      return {
        text: matching.length ? 'No more questions on this page.' : 'You have not asked any questions yet.',
        data: { questions, total: matching.length },
      };
    const lines = questions.map((q, i) => {
      const answered = q.answers.map(
        (a) =>
          `  @${a.peer}${a.written_by_owner ? ' (written by the owner)' : ''} (data): ${quote(a.text, 300)}`,
      );
      return [
        `${q.id} ${quote(q.question)} asked ${q.asked_at}`,
        `  Peers: ${peerLine(page[i]!.peers)}`,
        ...answered,
      ].join('\n');
    });
    return {
      text: `${matching.length} question${matching.length > 1 ? 's' : ''}${matching.length > questions.length ? ` (showing ${offset + 1}-${offset + questions.length})` : ''}:\n\n${lines.join('\n\n')}`,
      data: { questions, total: matching.length },
    };
  },
});
