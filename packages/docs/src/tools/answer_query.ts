import { type Passage, ToolError } from '@lore/kit';
import { AnswerQueryInput, AnswerQueryOutput } from '@lore/schema';
import { citeDocuments } from '../domain/citations.js';
import { tool } from '../ports.js';

/** Chunks retrieved as passages for an answer, and most chunks per document among them. */
const PASSAGES = 8;
const PER_DOCUMENT = 3;

export const answerQuery = tool({
  name: 'answer_query',
  title: 'Answer a question from the documentation',
  description:
    'Use this to get a grounded, synthesized conceptual answer to a general question about the documentation corpus ' +
    '(how something works, which approach to take). The answer cites the documents it used; their names are in ' +
    '`references` (pass them to get_documents). For exact code samples, CLI flags, specific error messages or full guides, ' +
    'use search_documents and then get_documents instead. Limited quota per agent (by default 10 per minute, 50 per day).',
  input: AnswerQueryInput,
  output: AnswerQueryOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, ctx) {
    const { ports } = ctx;
    const agent = ctx.agent;
    const refused = ports.quota.take(agent.id);
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
      const page = await ports.search.search({
        query: input.query,
        filter: null,
        offset: 0,
        limit: PASSAGES * 2,
        signal: ctx.signal,
      });
      const perDoc = new Map<string, number>();
      const passages: Passage[] = [];
      for (const h of page.hits) {
        const n = perDoc.get(h.document) ?? 0;
        if (n >= PER_DOCUMENT || passages.length >= PASSAGES) continue;
        perDoc.set(h.document, n + 1);
        // Where the chunk sits, as a heading line: context for a model, skipped by extraction.
        const where = [h.title, ...h.headingPath.filter((x) => x !== h.title)].join(' › ');
        passages.push({
          id: `${h.document}#chunk_${h.ordinal}`,
          source: h.document,
          text: `# ${where}\n\n${h.text}`,
          score: h.score,
        });
      }
      if (!passages.length) {
        ports.calls.record('answer_query');
        return {
          text: 'The documentation has nothing matching this question. Try search_documents with other words.',
          data: {
            answerText:
              'The documentation has nothing matching this question. Try search_documents with other words.',
            references: [],
            strategy: 'extractive' as const,
          },
        };
      }
      const result = await ports.textgen.generate(
        { task: 'answer', question: input.query, passages, detailed: true },
        { sampling: ctx.sampling, signal: ctx.signal },
      );
      ports.calls.record('answer_query');
      const { text, references } = citeDocuments(result.text, result.citations);
      const legend = references.map((name, i) => `[${i + 1}] ${name}`);
      const answerText = legend.length ? `${text}\n\nReferences:\n${legend.join('\n')}` : text;
      const how =
        result.strategy === 'extractive'
          ? 'extracted from the documents (no language model)'
          : result.strategy === 'sampling'
            ? "written by the client's model"
            : `written by ${result.model ?? 'the configured model'}`;
      return {
        text: `${answerText}\n\n(Answer ${how}. Fetch the references with get_documents for details.)`,
        data: {
          answerText,
          references,
          strategy: result.strategy,
          ...(result.model ? { model: result.model } : {}),
        },
      };
    } catch (err) {
      // The 2026-07-28 path ends this round to ask the client's model; the retry is the same call.
      if ((err as Error)?.name === 'InputRequiredSignal') ports.quota.refund(agent.id);
      throw err;
    }
  },
});
