import { plural } from '@lore/kit';
import { DocsCorporaInput, DocsCorporaOutput } from '@lore/schema/docs';
import { corpusStats } from '../domain/corpora.js';
import { tool } from '../ports.js';

export const docsCorpora = tool({
  name: 'docs_corpora',
  title: 'List the documentation corpora',
  description:
    'List the documentation corpora (data sources) this server holds, each with its documents, chunks and last change: ' +
    'the names to pass as `corpus` to answer_query and search_documents.',
  input: DocsCorporaInput,
  output: DocsCorporaOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(_input, { ports, agent }) {
    await ports.ownDocs();
    ports.calls.record('docs_corpora');
    const stats = await corpusStats(ports.store.db);
    const corpora = stats.map((c) => ({
      source: c.source,
      documents: c.documents,
      chunks: c.chunks,
      updateTime: new Date(c.updated).toISOString(),
    }));
    const documents = corpora.reduce((n, c) => n + c.documents, 0);
    const chunks = corpora.reduce((n, c) => n + c.chunks, 0);
    const text = corpora.length
      ? `${plural(corpora.length, 'corpus', 'corpora')}, ${plural(documents, 'document')}, ${plural(chunks, 'chunk')}:\n` +
        corpora
          .map(
            (c) =>
              `- ${c.source}: ${plural(c.documents, 'document')}, ${plural(c.chunks, 'chunk')} (updated ${c.updateTime})`,
          )
          .join('\n')
      : 'No documentation corpus yet.';
    return {
      text,
      data: { corpora, documents, chunks, operator: ports.operators.has(agent.handle) },
    };
  },
});
