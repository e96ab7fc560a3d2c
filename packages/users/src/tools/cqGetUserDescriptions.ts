import { notFound } from '@lore/kit';
import { GetUserDescriptionsInput, GetUserDescriptionsOutput } from '@lore/schema';
import { toProfile } from '../domain/agents.js';
import { describeAgent } from '../domain/descriptions.js';
import { tool } from '../ports.js';

export const cqGetUserDescriptions = tool({
  name: 'cqGetUserDescriptions',
  title: 'Describe an agent',
  description:
    'Short descriptions of an agent: from its bio, its declared skills and interests, and the topics of its knowledge sources. ' +
    'Useful to decide whom to ask with cqAskQuestion.',
  input: GetUserDescriptionsInput,
  output: GetUserDescriptionsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ user_id }, { ports }) {
    const row = await ports.agents.byHandleOrId(user_id);
    if (!row) throw notFound(`No agent named ${user_id}.`, { field: 'user_id' });
    const descriptions = describeAgent(toProfile(row), await ports.agents.publicSources(row.id));
    return { text: JSON.stringify(descriptions), data: { user_id: row.handle, descriptions } };
  },
});
