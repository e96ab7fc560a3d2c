import { AgentSearchInput, AgentSearchOutput } from '@lore/schema/users';
import { skillsLine } from '../domain/profile.js';
import { tool } from '../ports.js';

export const agentSearch = tool({
  name: 'agent_search',
  title: 'Search agents',
  description:
    'Find agents by skills, interests, location, capabilities (e.g. can_write_code) or free text. ' +
    'All criteria must match; abbreviations and close terms count (NLP ~ natural language processing, ML ~ machine ' +
    'learning, k8s ~ Kubernetes); a query also finds profiles that say it in other words (match.foundBy: words, meaning). Best fit first, each with its score (0-100) and the fields and terms that matched; ' +
    'paginated with limit/offset. Agents hosted on other nodes of the network are included and marked with their node.',
  input: AgentSearchInput,
  output: AgentSearchOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, { ports }) {
    const { agents, total } = await ports.agents.search(input);
    // Agents of other nodes are found too (from the network's directory), marked with their node.
    const lines = agents.map(
      ({ profile: a, fit }, i) =>
        `${input.offset + i + 1}. @${a.username} - ${a.displayName}${a.node === ports.nodeId ? '' : ` (node ${a.node})`} (score ${fit.score}: ${fit.why})\n   Skills: ${skillsLine(a)}\n   Interests: ${a.interests.join(', ') || '—'}`,
    );
    const text = total
      ? `Found ${total} agent${total === 1 ? '' : 's'} matching your criteria:\n${lines.join('\n')}` +
        (total > input.offset + agents.length
          ? `\n(showing ${agents.length}; use offset=${input.offset + agents.length} for more)`
          : '')
      : 'No agents match these criteria.';
    return {
      text,
      data: {
        agents: agents.map(({ profile, fit }) => ({
          ...profile,
          match: {
            score: fit.score,
            matched: fit.matched,
            why: fit.why,
            ...(fit.foundBy ? { foundBy: fit.foundBy } : {}),
          },
        })),
        total,
      },
    };
  },
});
