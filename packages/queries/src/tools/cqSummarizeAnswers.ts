import { notFound } from '@lore/kit';
import { SummarizeAnswersInput, SummarizeAnswersOutput } from '@lore/schema/queries';
import { mergePoints, type PeerSource, pointsText, type SummaryPoint } from '../domain/summary.js';
import { answerView, peerLine, peerView, quote, stillPending } from '../domain/views.js';
import { tool } from '../ports.js';

const STRATEGY = {
  endpoint: 'the configured language model endpoint',
  sampling: 'your client’s model (MCP sampling)',
  extractive: 'extraction (the peers’ own sentences, no model)',
} as const;

export const cqSummarizeAnswers = tool({
  name: 'cqSummarizeAnswers',
  title: 'Summarize the answers to your question',
  description:
    'Retrieves all peer responses for a given question and returns a cohesive summary, attributing each point to the peer ' +
    'who made it. related_question is the query id (qry-…), the exact question, or words from it or the question said ' +
    'another way (best match among your own questions, by words and meaning; found_by says which). detailed_answer: 1 detailed, 0 concise. Says which generation strategy produced the summary.',
  input: SummarizeAnswersInput,
  output: SummarizeAnswersOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ related_question, detailed_answer }, { ports, agent, sampling, signal }) {
    const found = await ports.questions.find(agent.id, related_question);
    if (!found) {
      const recent = await ports.questions.recent(agent.id);
      throw notFound(
        `You have not asked a question matching ${quote(related_question, 120)}.` +
          (recent.length
            ? ` Your recent questions: ${recent.map((q) => `${q.id} ${quote(q.question, 80)}`).join('; ')}.`
            : ' Ask one with cqAskQuestion.'),
        { field: 'related_question', recent: recent.map((q) => ({ id: q.id, question: q.question })) },
      );
    }
    const { row: q, matchedBy, foundBy } = found;
    const peers = await ports.questions.peersSeenByAsker(q, ports.now());
    const received = await ports.questions.answers(q.id);
    const pending = stillPending(peers);
    const base = {
      query_id: q.id,
      question: q.question,
      matched_by: matchedBy,
      ...(foundBy ? { found_by: foundBy } : {}),
      answers: received.map(answerView),
      peers: peers.map(peerView),
      pending,
    };
    if (received.length === 0) {
      const text =
        `No answers yet to ${quote(q.question)} (${q.id}): ${pending} of ${peers.length} peer${peers.length === 1 ? '' : 's'} still pending.` +
        `\nPeers: ${peerLine(peers)}`;
      return { text, data: { ...base, summary: null, strategy: null, citations: [], points: [] } };
    }
    const result = await ports.textgen.generate(
      {
        task: 'summarize',
        question: q.question,
        passages: received.map((a) => ({
          id: `${q.id}:${a.peerHandle}`,
          source: a.peerHandle,
          text: a.text,
        })),
        detailed: detailed_answer === 1,
      },
      { ...(sampling ? { sampling } : {}), signal },
    );
    // The answers merged by point, with who made each and where they disagree (any strategy);
    // detailed, with the sources each peer's answer cites.
    const detailed = detailed_answer === 1;
    const cited = new Map(received.map((a) => [a.peerHandle, a.citations as PeerSource[]]));
    const merged = mergePoints(
      received.map((a) => ({
        peer: a.peerHandle,
        text: a.text,
        ...(detailed ? { citations: cited.get(a.peerHandle) ?? [] } : {}),
      })),
    );
    const points = pointsText(merged, detailed);
    const footer =
      `Summary of ${received.length} answer${received.length > 1 ? 's' : ''} to ${quote(q.question)} (${q.id}), ` +
      `written by ${STRATEGY[result.strategy]}${result.model ? ` (${result.model})` : ''}. Peers: ${peerLine(peers)}.` +
      (pending ? ` ${pending} peer${pending > 1 ? 's' : ''} may still answer.` : '');
    return {
      text: `${result.text}\n\n${points ? `${points}\n\n` : ''}${footer}`,
      data: {
        ...base,
        summary: result.text,
        strategy: result.strategy,
        ...(result.model ? { model: result.model } : {}),
        citations: result.citations.map((c) => ({
          peer: c.source,
          excerpt: c.excerpt,
          ...(detailed ? { sources: sourcesBehind(c.excerpt, merged, c.source) } : {}),
        })),
        points: merged.map(pointView),
      },
    };
  },
});

function pointView(p: SummaryPoint) {
  return {
    text: p.sentences[0]!.text,
    peers: p.peers,
    disagreement: p.disagreement,
    statements: p.sentences.map((s) => ({
      peer: s.peer,
      text: s.text,
      ...(s.sources ? { sources: s.sources } : {}),
    })),
  };
}

/** The peer's own sources behind an excerpt of its answer the summary quotes. */
function sourcesBehind(excerpt: string, points: SummaryPoint[], peer: string): PeerSource[] {
  const flat = excerpt.replace(/\s+/g, ' ').trim();
  const out = new Map<string, PeerSource>();
  for (const p of points)
    for (const s of p.sentences)
      if (s.peer === peer && (flat.includes(s.text) || s.text.includes(flat)))
        for (const c of s.sources ?? []) out.set(`${c.source}\u0000${c.excerpt}`, c);
  return [...out.values()];
}
