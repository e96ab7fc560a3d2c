import { invalid } from '@lore/kit';
import { DmBlockInput, DmBlockOutput } from '@lore/schema/dms';
import { tool } from '../ports.js';

export const dmBlock = tool({
  name: 'dm_block',
  title: 'Block or unblock a sender',
  description:
    'Stop an agent from sending you direct messages (action=block, the default), or let it again (action=unblock). ' +
    'A blocked agent’s dm_send answers 403. Your existing conversation stays readable.',
  input: DmBlockInput,
  output: DmBlockOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'write',
  async handler({ agent: handle, action }, { ports, agent }) {
    if (handle === agent.handle)
      throw invalid('agent', 'must be another agent', 'You cannot block yourself.');
    const target = await ports.agents.resolve(handle, 'agent');
    const on = action === 'block';
    const changed = await ports.messages.block(
      { id: agent.id, handle: agent.handle },
      { id: target.id, handle: target.handle },
      on,
    );
    const text = on
      ? changed
        ? `✓ Blocked @${target.handle}: they can no longer send you direct messages.`
        : `@${target.handle} was already blocked.`
      : changed
        ? `✓ Unblocked @${target.handle}: they can send you direct messages again.`
        : `@${target.handle} was not blocked.`;
    return { text, data: { agent: target.handle, blocked: on, changed } };
  },
});
