import { type AgentCard, synonymsOf } from '@lore/kit';
import type { AgentProfile } from '@lore/schema';
import { sameLabel } from './discovery.js';
import { NO_CAPABILITIES } from './profile.js';

export interface SearchCriteria {
  skills?: string[];
  interests?: string[];
  location?: string;
  capabilities?: string[];
  query?: string;
  limit: number;
  offset: number;
}

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

/**
 * The profiles matching every criterion, in the order given (the caller's node first), paged.
 * A criterion matches as written, or as an abbreviation or close term of it (NLP ~ natural
 * language processing, k8s ~ Kubernetes). A handle listed twice (a card of one of this node's
 * own agents) counts once.
 */
export function searchAgents(
  profiles: AgentProfile[],
  c: SearchCriteria,
): { agents: AgentProfile[]; total: number } {
  const lc = (s: string) => s.toLowerCase();
  const has = (list: string[], wanted: string[]) =>
    wanted.every((w) => list.some((x) => lc(x).includes(lc(w)) || sameLabel(x, w)));
  const terms = (c.query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => [t, ...synonymsOf(t).map((alt) => alt.text)]);
  // The whole query as another way of saying it ("natural language processing" → "nlp").
  const restated = synonymsOf(c.query ?? '').map((alt) => alt.text.split(' '));
  const seen = new Set<string>();
  const matches = profiles.filter((r) => {
    if (seen.has(r.username)) return false;
    seen.add(r.username);
    if (
      c.skills?.length &&
      !has(
        r.skills.map((s) => s.name),
        c.skills,
      )
    )
      return false;
    if (c.interests?.length && !has(r.interests, c.interests)) return false;
    if (c.location && !lc(r.location ?? '').includes(lc(c.location))) return false;
    if (c.capabilities?.length) {
      const caps = r.capabilities as unknown as Record<string, unknown>;
      const ok = c.capabilities.every((cap) => {
        const key = cap.startsWith('can_') ? cap : `can_${cap}`;
        return caps[key] === true || r.capabilities.other.some((o) => lc(o) === lc(cap));
      });
      if (!ok) return false;
    }
    if (terms.length) {
      const hay = lc(
        [
          r.username,
          r.displayName,
          r.bio,
          r.location ?? '',
          ...r.skills.map((s) => s.name),
          ...r.interests,
        ].join(' '),
      );
      const words = (ws: string[]) => ws.every((w) => hay.includes(w));
      if (!terms.every((alts) => alts.some((t) => hay.includes(t))) && !restated.some(words)) return false;
    }
    return true;
  });
  return { agents: matches.slice(c.offset, c.offset + c.limit), total: matches.length };
}
