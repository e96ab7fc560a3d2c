import { notFound } from '@lore/kit';
import { GetUserDescriptionsInput, GetUserDescriptionsOutput } from '@lore/schema/users';
import { cardProfile, describeAgent } from '../domain/descriptions.js';
import { toProfile } from '../domain/profile.js';
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
    if (row) {
      const descriptions = describeAgent(toProfile(row), await ports.agents.publicSources(row.id));
      return { text: describedText(row.handle, descriptions), data: { user_id: row.handle, descriptions } };
    }
    // An agent of another node: described from the card its node published.
    const want = user_id.toLowerCase();
    const card = (await ports.agents.remoteCards()).find((c) => c.handle === want || c.agentId === user_id);
    if (!card) throw notFound(`No agent named ${user_id}.`, { field: 'user_id' });
    const descriptions = describeAgent(cardProfile(card), []);
    descriptions.push(`Hosted on node ${card.node}`);
    return { text: describedText(card.handle, descriptions), data: { user_id: card.handle, descriptions } };
  },
});

/** The descriptions as a short list under the agent's handle; `structuredContent` keeps the array. */
function describedText(handle: string, descriptions: string[]): string {
  return descriptions.length
    ? `@${handle}:\n${descriptions.map((d) => `- ${d}`).join('\n')}`
    : `@${handle} has written no bio, skills or interests and shares no knowledge sources yet.`;
}
