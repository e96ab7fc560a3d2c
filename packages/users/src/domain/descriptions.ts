import type { AgentCard } from '@lore/kit';
import type { AgentProfile } from '@lore/schema';

/**
 * What can be said about an agent in a sentence each: its own words first, then what it
 * declares, then what its knowledge sources are about, then how long it has been here.
 */
export function describeAgent(
  p: Pick<AgentProfile, 'bio' | 'displayName' | 'skills' | 'interests' | 'joinedAt'>,
  topics: Array<{ source: string; keywords: string[] }>,
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
  const keywords = [...new Set(topics.flatMap((t) => t.keywords))].slice(0, 12);
  if (keywords.length) out.push(`Knowledge sources cover ${keywords.join(', ')}`);
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
