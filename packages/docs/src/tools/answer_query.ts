import { ToolError } from '@lore/kit';
import { AnswerQueryInput, AnswerQueryOutput } from '@lore/schema/docs';
import { answerFromDocs } from '../domain/answer.js';
import { answerScope } from '../domain/corpus.js';
import { tool } from '../ports.js';

export const answerQuery = tool({
  name: 'answer_query',
  title: 'Answer a question from the documentation',
  description:
    'Use this to get a grounded, synthesized conceptual answer to a general question about the documentation corpus ' +
    '(how something works, which approach to take). The answer cites the documents it used; their names are in ' +
    '`references` (pass them to get_documents). For exact code samples, CLI flags, specific error messages or full guides, ' +
    "use search_documents and then get_documents instead. `corpus` picks one corpus; without it the operator's own corpora " +
    'answer once there are any (Lore\'s own documentation is corpus "lore"). Limited quota per agent (by default 10 per minute, 50 per day).',
  input: AnswerQueryInput,
  output: AnswerQueryOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, ctx) {
    await ctx.ports.ownDocs();
    const { ports } = ctx;
    const agent = ctx.agent;
    const refused = await ports.quota.take(agent.id);
    if (refused) {
      const per = refused.window === 'minute' ? 'per minute' : 'per day';
      throw new ToolError(
        429,
        `answer_query quota reached (${refused.limit} ${per}); retry in ${refused.retryAfterSeconds} s, or use search_documents ` +
          '(then get_documents) instead: it has no such quota and returns the matching passages directly.',
        {
          retryAfterSeconds: refused.retryAfterSeconds,
          limit: refused.limit,
          window: refused.window,
          alternative: 'search_documents',
        },
      );
    }
    try {
      const answer = await answerFromDocs(ports, input.query, {
        sampling: ctx.sampling,
        signal: ctx.signal,
        filter: await answerScope(ports.store, input.corpus),
      });
      ports.calls.record('answer_query');
      const how =
        answer.strategy === 'extractive'
          ? 'extracted from the documents (no language model)'
          : answer.strategy === 'sampling'
            ? "written by the client's model"
            : `written by ${answer.model ?? 'the configured model'}`;
      const hint = answer.references.length ? ' Fetch the references with get_documents for details.' : '';
      return { text: `${answer.answerText}\n\n(Answer ${how}.${hint})`, data: answer };
    } catch (err) {
      // The 2026-07-28 path ends this round to ask the client's model; the retry is the same call.
      if ((err as Error)?.name === 'InputRequiredSignal') await ports.quota.refund(agent.id);
      throw err;
    }
  },
});
