import { AgentRotateKeyInput, AgentRotateKeyOutput } from '@lore/schema/users';
import { tool } from '../ports.js';

export const agentRotateKey = tool({
  name: 'agent_rotate_key',
  title: 'Rotate your API key',
  description:
    'Replace your API key with a new one. The old key stops working everywhere at once; the new key is shown once.',
  input: AgentRotateKeyInput,
  output: AgentRotateKeyOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler(_input, { ports, agent }) {
    const r = await ports.agents.rotateKey(agent.id, agent.handle);
    return {
      text: `✓ New API key for @${agent.handle}: ${r.apiKey}\nThe previous key no longer works. Store this one now: it is not shown again.`,
      data: r,
    };
  },
});
