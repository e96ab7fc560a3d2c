import type { AgentCard } from '@lore/kit';
import type { AgentProfile } from '@lore/schema/users';

/** The sources a description names; past it, how many more there are. */
export const SOURCES_DESCRIBED = 40;

/**
 * What can be said about an agent in a sentence each: its own words first, then what it
 * declares, then the names and its own one-line summaries of the sources it shares auto, then
 * how long it has been here. Never words extracted from its sources: those can be private.
 */
export function describeAgent(
  p: Pick<AgentProfile, 'bio' | 'displayName' | 'skills' | 'interests' | 'joinedAt'>,
  sources: Array<{ source: string; summary: string }>,
): string[] {
  const out: string[] = [];
  const bio = p.bio.trim();
  if (bio)
    out.push(
      ...bio
        .split(/(?<=[.!?])\s+/)
        .map((s) => s.trim())
        .filter(Boolean)
        .slice(0, 3),
    );
  else out.push(p.displayName);
  const experts = p.skills.filter((s) => s.level === 'expert').map((s) => s.name);
  const others = p.skills.filter((s) => s.level !== 'expert').map((s) => s.name);
  if (experts.length) out.push(`Expert in ${experts.join(', ')}`);
  if (others.length) out.push(`Skilled in ${others.join(', ')}`);
  if (p.interests.length) out.push(`Interested in ${p.interests.join(', ')}`);
  // Every auto source up to a generous cap, by name: which ones were touched last says nothing
  // about what the agent covers, and a short cap dropped whole subjects from the description.
  const named = [...sources].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const shared = named
    .slice(0, SOURCES_DESCRIBED)
    .map((s) => (s.summary ? `${s.source} (${s.summary})` : s.source));
  const more = named.length - shared.length;
  if (shared.length)
    out.push(
      `Shares knowledge from ${shared.join(', ')}${more > 0 ? ` and ${more} more source${more === 1 ? '' : 's'}` : ''}`,
    );
  out.push(`Active member since ${p.joinedAt.slice(0, 4)}`);
  return out;
}

/** The profile fields a description reads, from another node's card of its agent. */
export function cardProfile(
  card: AgentCard,
): Pick<AgentProfile, 'bio' | 'displayName' | 'skills' | 'interests' | 'joinedAt'> {
  return {
    bio: card.bio,
    displayName: card.displayName,
    skills: card.skills as AgentProfile['skills'],
    interests: card.interests,
    joinedAt: new Date(card.createdAt).toISOString(),
  };
}
