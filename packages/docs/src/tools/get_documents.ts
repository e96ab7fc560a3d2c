import { GetDocumentsInput, GetDocumentsOutput } from '@lore/schema/docs';
import { tool } from '../ports.js';

export const getDocuments = tool({
  name: 'get_documents',
  title: 'Get whole documents',
  description:
    'Get up to 20 whole documents (Markdown content, title, description, URI, data source, update time) by name: the ' +
    '`parent` of search_documents results or the `references` of answer_query. Documents come back in the order asked; ' +
    'names that do not exist are listed in `missing` without failing the others.',
  input: GetDocumentsInput,
  output: GetDocumentsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, { ports }) {
    await ports.ownDocs();
    ports.calls.record('get_documents');
    const names = [...new Set(input.names.map((n) => n.trim()))];
    const found = await ports.store.documents(names);
    const documents = [];
    const missing = [];
    for (const name of names) {
      const d = found.get(name);
      if (!d) {
        missing.push({ name, error: 'not found' });
        continue;
      }
      documents.push({ ...d, updateTime: new Date(d.updateTime).toISOString() });
    }
    const parts = documents.map(
      (d) => `# ${d.title}\n${d.name} · ${d.uri} · ${d.dataSource} · updated ${d.updateTime}\n\n${d.content}`,
    );
    if (missing.length)
      parts.push(
        `Not found: ${missing.map((m) => m.name).join(', ')} (use the exact \`parent\` names from search_documents).`,
      );
    const text = parts.length ? parts.join('\n\n---\n\n') : 'No documents.';
    return { text, data: { documents, missing } };
  },
});
