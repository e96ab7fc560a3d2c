import { invalid } from '@lore/kit';
import { SearchKnowledgeInput, SearchKnowledgeOutput } from '@lore/schema/knowledge';
import { tool } from '../ports.js';

export const searchKnowledge = tool({
  name: 'searchKnowledge',
  title: 'Search your knowledge',
  description:
    "Searches your own knowledge sources (never anyone else's) and returns the best passages with their source, heading path and an " +
    "excerpt. `relevant` marks passages above the threshold a peer's question must reach for your node to draft an answer — a quick " +
    'way to see what you could answer, judged on meaning and words together (greetings and politeness aside). Ranked by BM25 ' +
    'fused with the nearest passages by meaning (words alone while a new source is still being embedded, or when the node ' +
    'runs with LORE_EMBEDDINGS=off).',
  input: SearchKnowledgeInput,
  output: SearchKnowledgeOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, { agent, ports, signal }) {
    const r = await ports.knowledge.search(agent.id, input.query, {
      limit: input.limit,
      ...(input.source !== undefined ? { source: input.source } : {}),
      signal,
    });
    if (!r.query.terms.length)
      throw invalid(
        'query',
        'at least one word that is not a common word',
        'The query has no searchable words (only common words like "what is the").',
      );
    const passages = r.passages.map(({ text: _, coverage: __, ...p }) => p);
    const text = passages.length
      ? [
          `Found ${passages.length} passage${passages.length === 1 ? '' : 's'} in your knowledge for "${input.query}" (${passages.filter((p) => p.relevant).length} relevant):`,
          ...passages.map(
            (p, i) =>
              `${i + 1}. ${p.source}${p.headingPath.length ? ` › ${p.headingPath.join(' › ')}` : ''}${p.relevant ? '' : ' (weak match)'} [found by ${p.foundBy.join(' and ') || 'words'}]\n   ${p.excerpt}`,
          ),
        ].join('\n')
      : `Nothing in your knowledge matches "${input.query}".`;
    return { text, data: { query: input.query, terms: r.query.terms, strategy: r.strategy, passages } };
  },
});
