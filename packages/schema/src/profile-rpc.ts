import { z } from 'zod';
import { defineRpc } from './rpc.js';

/** An agent's public traits, answered by the users service of the node that hosts it. */
export const AgentTraitsRequest = z.object({ agentId: z.string() });
export const AgentTraits = z.object({
  id: z.string(),
  handle: z.string(),
  node: z.string(),
  displayName: z.string(),
  bio: z.string(),
  skills: z.array(z.string()),
  interests: z.array(z.string()),
});
export type AgentTraits = z.infer<typeof AgentTraits>;
export const AgentTraitsReply = z.object({ agent: AgentTraits.nullable() });

/** Whether two agents are connected (connect_agents, both sides), answered by the users service. */
export const AgentsConnectedRequest = z.object({ agentId: z.string(), otherId: z.string() });
export const AgentsConnectedReply = z.object({ connected: z.boolean() });

export const UsersProfileRpc = {
  traits: defineRpc('rpc.users.agent_traits', AgentTraitsRequest, AgentTraitsReply),
  connected: defineRpc('rpc.users.agents_connected', AgentsConnectedRequest, AgentsConnectedReply),
};
