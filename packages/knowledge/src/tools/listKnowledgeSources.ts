import { ListKnowledgeSourcesInput, ListKnowledgeSourcesOutput } from '@lore/schema/knowledge';
import { describeSensitivity } from '../domain/sensitivity.js';
import { tool } from '../ports.js';

export const listKnowledgeSources = tool({
  name: 'listKnowledgeSources',
  title: 'List your knowledge sources',
  description:
    'Lists the knowledge sources you added with updateKnowledgeSources: name, format, chunks, topic keywords, sharing (auto, manual, ' +
    'private; change it with setKnowledgeSourceSharing), your one-line summary, when added and last updated, and how many ' +
    'passages hold credentials, contact data, health, money or other personal matters (classified at ingest: answers drawn ' +
    'from them always wait for you). ' +
    'Only your own sources.',
  input: ListKnowledgeSourcesInput,
  output: ListKnowledgeSourcesOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(_input, { agent, ports }) {
    const sources = await ports.knowledge.list(agent.id);
    const chunks = sources.reduce((n, s) => n + s.chunks, 0);
    const text = sources.length
      ? [
          `You have ${sources.length} knowledge source${sources.length === 1 ? '' : 's'} (${chunks} chunks):`,
          ...sources.map(
            (s, i) =>
              `${i + 1}. ${s.name} — ${s.format}, ${s.chunks} chunk${s.chunks === 1 ? '' : 's'}, shared ${s.sharing}, updated ${s.updatedAt}\n   Topics: ${s.keywords.join(', ') || '—'}${s.summary ? `\n   Summary: ${s.summary}` : ''}${describeSensitivity(
                s.sensitivity,
              )
                .map((line) => `\n   ${line}`)
                .join('')}`,
          ),
        ].join('\n')
      : 'You have no knowledge sources yet. Add one with updateKnowledgeSources (file_name + file_content, or file_path).';
    return { text, data: { sources, total: sources.length, chunks } };
  },
});
