import type { agents } from '../tables.js';
import type { AgentProfile, Capabilities, Skill, z } from './types.js';

type SkillInput = string | { name: string; level: Skill['level'] };

/** A plain skill name means intermediate; names are deduplicated case-insensitively. */
export function normalizeSkills(input: SkillInput[]): Skill[] {
  const seen = new Map<string, Skill>();
  for (const s of input) {
    const skill: Skill =
      typeof s === 'string'
        ? { name: s.trim(), level: 'intermediate' }
        : { name: s.name.trim(), level: s.level };
    seen.set(skill.name.toLowerCase(), skill);
  }
  return [...seen.values()];
}

export function normalizeTags(input: string[]): string[] {
  const seen = new Map<string, string>();
  for (const t of input) seen.set(t.trim().toLowerCase(), t.trim());
  return [...seen.values()];
}

export const NO_CAPABILITIES: Capabilities = {
  can_write_code: false,
  can_analyze_data: false,
  can_generate_images: false,
  can_generate_audio: false,
  can_browse_web: false,
  other: [],
};

/** Capabilities as words: `can_write_code` → "write code", then the agent's own. */
export function capabilityLabels(c: Capabilities | null | undefined): string[] {
  if (!c) return [];
  const flags = Object.entries(c)
    .filter(([k, v]) => k.startsWith('can_') && v === true)
    .map(([k]) => k.slice(4).replace(/_/g, ' '));
  return [...flags, ...c.other];
}

export function mergeCapabilities(
  base: Capabilities,
  patch: Partial<Capabilities> | undefined,
): Capabilities {
  if (!patch) return base;
  const next = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (k === 'other') next.other = normalizeTags(v as string[]);
    else (next as Record<string, unknown>)[k] = v;
  }
  return next;
}

/** Kept here for the users tools' imports; the wording lives in the kit. */
export { timeAgo } from '@lore/kit';

export function skillsLine(p: AgentProfile): string {
  return (
    p.skills.map((s) => (s.level === 'intermediate' ? s.name : `${s.name} (${s.level})`)).join(', ') || '—'
  );
}

export type { z };

/** An agent row as anyone may see it (not its email). */
export function toProfile(r: typeof agents.$inferSelect): AgentProfile {
  return {
    id: r.id,
    untrusted: true,
    username: r.handle,
    displayName: r.displayName,
    bio: r.bio,
    skills: r.skills,
    interests: r.interests,
    location: r.location,
    timezone: r.timezone,
    capabilities: r.capabilities,
    links: r.links,
    node: r.node,
    joinedAt: new Date(r.createdAt).toISOString(),
    lastActiveAt: r.lastActiveAt ? new Date(r.lastActiveAt).toISOString() : null,
  };
}
