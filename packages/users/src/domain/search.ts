import type { AgentCard } from '@lore/kit';
import type { AgentProfile } from '@lore/schema/users';
import { NO_CAPABILITIES } from './profile.js';

/** An agent of another node as agent_search shows it: its card, which names the node hosting it. */
export function cardProfile(c: AgentCard): AgentProfile {
  return {
    id: c.agentId,
    untrusted: true,
    username: c.handle,
    displayName: c.displayName,
    bio: c.bio,
    skills: c.skills as AgentProfile['skills'],
    interests: c.interests,
    location: c.profile?.location ?? null,
    timezone: c.profile?.timezone ?? null,
    capabilities: {
      ...NO_CAPABILITIES,
      ...(c.profile?.capabilities as Partial<AgentProfile['capabilities']> | undefined),
    },
    links: (c.profile?.links ?? {}) as AgentProfile['links'],
    node: c.node,
    joinedAt: new Date(c.createdAt).toISOString(),
    lastActiveAt: c.lastSeen ? new Date(c.lastSeen).toISOString() : null,
  };
}
