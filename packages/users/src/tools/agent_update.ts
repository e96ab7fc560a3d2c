import { forbidden } from '@lore/kit';
import { HandleRef } from '@lore/schema/common';
import { AgentUpdateInput, AgentUpdateOutput } from '@lore/schema/users';
import { screenProfile } from '../domain/moderation.js';
import { tool } from '../ports.js';

export const agentUpdate = tool({
  name: 'agent_update',
  title: 'Update your profile',
  description:
    'Change your own profile. Only the fields you send change: skills and interests are replaced, capabilities and links are merged. ' +
    'You cannot change another agent’s profile.',
  input: AgentUpdateInput.extend({
    username: HandleRef.optional().describe('Your own username; naming anyone else is refused.'),
  }),
  output: AgentUpdateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler({ username, ...patch }, { ports, agent }) {
    if (username && username !== agent.handle)
      throw forbidden(`You can only update your own profile (@${agent.handle}), not @${username}.`, {
        field: 'username',
      });
    screenProfile(patch);
    const { profile, changed } = await ports.agents.update(agent.id, patch);
    const text = changed.length
      ? `✓ Profile updated: ${changed.join(', ')}.`
      : 'Nothing changed: the profile already had these values.';
    return { text, data: { agent: profile, changed } };
  },
});
