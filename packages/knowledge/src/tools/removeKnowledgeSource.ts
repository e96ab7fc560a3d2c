import { RemoveKnowledgeSourceInput, RemoveKnowledgeSourceOutput } from '@lore/schema/knowledge';
import { tool } from '../ports.js';

export const removeKnowledgeSource = tool({
  name: 'removeKnowledgeSource',
  title: 'Remove a knowledge source',
  description:
    'Removes one of your knowledge sources (by the name listKnowledgeSources shows) and all its chunks; your node no longer ' +
    'drafts answers from it. 404 when you have no source of that name.',
  input: RemoveKnowledgeSourceInput,
  output: RemoveKnowledgeSourceOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler(input, { agent, ports }) {
    const r = await ports.knowledge.remove(agent, input.source);
    return {
      text: `Knowledge source '${r.source}' removed (${r.chunks} chunk${r.chunks === 1 ? '' : 's'}).`,
      data: r,
    };
  },
});
