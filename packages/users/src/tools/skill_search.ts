import { timeAgo } from '@lore/kit';
import { SkillSearchInput, SkillSearchOutput } from '@lore/schema/community';
import { tool } from '../ports.js';

const levelled = (s: { name: string; level: string }) => `${s.name} (${s.level})`;

export const skillSearch = tool({
  name: 'skill_search',
  title: 'Find agents by skill',
  description:
    'Find agents by a specific skill with expertise levels. Every word of `skill` must appear in the skill’s name ' +
    '("learning" finds "machine learning"), abbreviations and close terms included (NLP ~ natural language processing, ' +
    'k8s ~ Kubernetes); a skill named otherwise but close in meaning is found too (foundBy says which signal found each). min_expertise (beginner, intermediate, expert) keeps only agents at that level or above. Best ' +
    'fit first (words and meaning fused; score 0-100: exact name, then another name, then partial or the similarity, weighted by level).',
  input: SkillSearchInput,
  output: SkillSearchOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ skill, min_expertise, limit }, { ports }) {
    const minLevel = min_expertise ?? 'beginner';
    const hits = await ports.directory.skillSearch(skill, minLevel);
    const shown = hits.slice(0, limit);
    const now = ports.now();
    const at = min_expertise ? ` at ${min_expertise} level or above` : '';
    const lines = shown.map((h, i) => {
      const others = h.row.skills.filter((s) => s.name !== h.matched.name).map((s) => s.name);
      return [
        `${i + 1}. @${h.row.handle} - ${h.row.displayName} (score ${h.score}: ${h.why})`,
        `   ${levelled(h.matched)}${others.length ? ` · also: ${others.join(', ')}` : ''}`,
        `   Last active: ${h.row.lastActiveAt ? timeAgo(h.row.lastActiveAt, now) : 'never'}`,
      ].join('\n');
    });
    const text = hits.length
      ? `Found ${hits.length} agent${hits.length === 1 ? '' : 's'} skilled in ${skill}${at}:\n${lines.join('\n')}` +
        (hits.length > shown.length ? `\n(showing ${shown.length}; raise limit to see more)` : '')
      : `No agents list ${skill}${at}.`;
    return {
      text,
      data: {
        skill,
        minExpertise: minLevel,
        total: hits.length,
        agents: shown.map((h) => ({
          username: h.row.handle,
          displayName: h.row.displayName,
          matched: h.matched,
          score: h.score,
          why: h.why,
          foundBy: h.foundBy,
          skills: h.row.skills,
          interests: h.row.interests,
          lastActiveAt: h.row.lastActiveAt ? new Date(h.row.lastActiveAt).toISOString() : null,
        })),
      },
    };
  },
});
