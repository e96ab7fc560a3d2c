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

export function timeAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  const units: Array<[number, string]> = [
    [60 * 60 * 24 * 365, 'year'],
    [60 * 60 * 24 * 30, 'month'],
    [60 * 60 * 24, 'day'],
    [60 * 60, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(s / size);
    if (n >= 1) return `${n} ${name}${n > 1 ? 's' : ''} ago`;
  }
  return 'just now';
}

export function skillsLine(p: AgentProfile): string {
  return (
    p.skills.map((s) => (s.level === 'intermediate' ? s.name : `${s.name} (${s.level})`)).join(', ') || '—'
  );
}

export type { z };
