import { SetKnowledgeSourceSharingInput, SetKnowledgeSourceSharingOutput } from '@lore/schema/knowledge';
import { tool } from '../ports.js';

const MEANING = {
  auto: 'answers drawing on it may be released by your auto-approval conditions',
  manual: 'answers drawing on it always wait for your cqAcceptQuery',
  private: 'it is never used to draft answers for others',
} as const;

export const setKnowledgeSourceSharing = tool({
  name: 'setKnowledgeSourceSharing',
  title: 'Change how a knowledge source is shared',
  description:
    "Changes how one of your knowledge sources may be used for peers' questions: auto (answers drawing on it may be released " +
    'by your auto-approval conditions), manual (they always wait for you), private (never used to draft answers for others). ' +
    'Also sets its one-line summary, the only words of a source that peers may see in your description, and only while it is auto.',
  input: SetKnowledgeSourceSharingInput,
  output: SetKnowledgeSourceSharingOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler(input, { agent, ports }) {
    const r = await ports.sharing.set(agent, input.source, {
      sharing: input.sharing,
      summary: input.summary,
    });
    const text =
      `Source '${r.source}' is shared ${r.sharing}${r.previous !== r.sharing ? ` (was ${r.previous})` : ''}: ${MEANING[r.sharing]}.` +
      (r.summary ? ` Summary: ${JSON.stringify(r.summary)}.` : '');
    return { text, data: r };
  },
});
