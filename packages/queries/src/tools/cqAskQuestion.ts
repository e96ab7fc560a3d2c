import { invalid, notFound, rateLimited } from '@lore/kit';
import { AskQuestionInput, AskQuestionOutput } from '@lore/schema/queries';
import { newQueryId } from '../domain/ids.js';
import { tool } from '../ports.js';

export const cqAskQuestion = tool({
  name: 'cqAskQuestion',
  title: 'Ask peers a question',
  description:
    'Sends a question to specified peers or broadcasts it to the entire network. Each peer’s node drafts an answer from ' +
    'that peer’s own knowledge; the peer’s approval policy decides whether it is shared. Read the answers with ' +
    'cqSummarizeAnswers (or cqListAskedQuestions) once peers have answered.',
  input: AskQuestionInput,
  output: AskQuestionOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  rateClass: 'write',
  async handler({ question, peers }, { ports, agent }) {
    const wanted = [...new Set(peers)];
    if (wanted.includes(agent.handle))
      throw invalid(
        'peers',
        'must not include yourself',
        'You cannot ask yourself: remove your own handle from peers.',
      );
    const broadcast = wanted.length === 0;
    let targets: Array<{ handle: string; agentId: string; node: string }>;
    if (broadcast) {
      targets = await ports.network.everyoneExcept(agent.id);
      if (targets.length === 0)
        throw notFound('No other agents on the network to ask yet.', { field: 'peers' });
    } else {
      const { found, missing } = await ports.network.resolve(wanted);
      if (missing.length)
        throw notFound(
          `Unknown peer${missing.length > 1 ? 's' : ''}: ${missing.map((h) => `@${h}`).join(', ')}. Find agents with agent_search.`,
          {
            field: 'peers',
            peers: missing,
          },
        );
      targets = found;
      // An owner's inbox is not a place to pile questions: past the limit of waiting ones, wait.
      const waiting = await ports.questions.waitingFor(
        agent.id,
        targets.map((t) => t.agentId),
        ports.now(),
      );
      const full = targets.filter((t) => (waiting.get(t.agentId)?.waiting ?? 0) >= ports.waitingPerAsker);
      if (full.length) {
        const nextExpiry = Math.min(...full.map((t) => waiting.get(t.agentId)!.nextExpiry));
        const retryAfter = Math.max(1, Math.ceil((nextExpiry - ports.now()) / 1000));
        throw rateLimited(
          retryAfter,
          `${full.map((t) => `@${t.handle}`).join(', ')} already ${full.length > 1 ? 'have' : 'has'} ${ports.waitingPerAsker} of your questions waiting for an answer: ask again once they answer or decline, or when the oldest expires (in ${formatWait(retryAfter)}).`,
        );
      }
    }
    const id = newQueryId();
    const askedAt = ports.now();
    const expiresAt = askedAt + ports.ttlMs;
    const profile = await ports.askerProfile(agent.id);
    await ports.questions.ask({
      id,
      asker: { id: agent.id, handle: agent.handle, node: agent.node, profile },
      question,
      peers: targets.map((t) => ({ id: t.agentId, handle: t.handle, node: t.node })),
      broadcast,
      askedAt,
      expiresAt,
    });
    const names = targets.map((t) => `@${t.handle}`);
    const to = broadcast
      ? `to all ${targets.length} peer${targets.length > 1 ? 's' : ''} of the network`
      : `to ${names.length > 10 ? `${names.slice(0, 10).join(', ')} and ${names.length - 10} more` : names.join(', ')}`;
    const many = broadcast || targets.length > 1;
    const content =
      `Query request sent ${to} (query_id ${id}). ${many ? 'Answers arrive' : 'The answer arrives'} as ` +
      `${many ? 'each peer or their approval conditions release them' : 'the peer or their approval conditions release it'}; ` +
      `the question stays open until ${new Date(expiresAt).toISOString()}. Tell the user it is on its way, and when ` +
      `they want the answers call cqSummarizeAnswers with related_question "${id}" (it credits each peer).`;
    return {
      text: content,
      data: {
        content,
        query_id: id,
        question,
        peers: targets.map((t) => t.handle),
        peers_reached: targets.length,
        broadcast,
        expires_at: new Date(expiresAt).toISOString(),
      },
    };
  },
});

const formatWait = (seconds: number) =>
  seconds >= 3600
    ? `${Math.round(seconds / 3600)} h`
    : seconds >= 60
      ? `${Math.round(seconds / 60)} min`
      : `${seconds} s`;
