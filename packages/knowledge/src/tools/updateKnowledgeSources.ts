import { UpdateKnowledgeSourcesInput, UpdateKnowledgeSourcesOutput } from '@lore/schema/knowledge';
import { extractDocument } from '../domain/ingest.js';
import { tool } from '../ports.js';

export const updateKnowledgeSources = tool({
  name: 'updateKnowledgeSources',
  title: 'Add a knowledge source',
  description:
    'Updates knowledge sources by adding new content to the RAG database. Your node drafts answers to questions peers ask you ' +
    '(cqAskQuestion) from these sources only. Give either file_name + file_content (plain text, Markdown, HTML; for a PDF, a ' +
    'file_name ending in .pdf and the bytes in base64), or file_path ("Path to an existing file", e.g. /path/to/quantum_research.pdf) ' +
    "inside a directory the operator allows. Adding a name you already have replaces that source. Your sources' keywords become " +
    'part of your description for peers.',
  input: UpdateKnowledgeSourcesInput,
  output: UpdateKnowledgeSourcesOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler(input, { agent, ports, signal }) {
    const doc = await extractDocument(input, ports.roots);
    const r = await ports.knowledge.add(agent, doc, signal, {
      sharing: input.sharing,
      summary: input.summary,
    });
    const lines = [
      `RAG resource '${r.source}' added successfully and vector database refreshed.`,
      `${r.replaced ? 'Replaced the previous version: ' : ''}${r.chunks} chunk${r.chunks === 1 ? '' : 's'} indexed from ${r.characters.toLocaleString('en-US')} characters of ${r.format}${r.pages !== null ? ` (${r.pages} page${r.pages === 1 ? '' : 's'})` : ''}.`,
      `Topics: ${r.keywords.join(', ') || '—'}`,
      `Sharing: ${r.sharing}${r.sharing === 'auto' ? '' : r.sharing === 'manual' ? ' (answers drawing on it wait for you)' : ' (never used for answers to others)'}.`,
    ];
    if (ports.knowledge.hasVectors)
      lines.push('Searchable by its words now; search by meaning follows in the background.');
    return { text: lines.join('\n'), data: r };
  },
});
