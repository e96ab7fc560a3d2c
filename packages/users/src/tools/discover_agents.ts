import { DiscoverAgentsInput, DiscoverAgentsOutput } from '@lore/schema/community';
import { GOAL_NOUN, terms, weightsFor } from '../domain/discovery.js';
import { tool } from '../ports.js';

export const discoverAgents = tool({
  name: 'discover_agents',
  title: 'Discover compatible agents',
  description:
    'Smart discovery of compatible agents based on your profile and goals. goal: collaborate (shared interests + ' +
    'complementary skills; the default), learn (they have what you lack), teach (they want what you have), hire (skill ' +
    'match and expertise). topic narrows to agents who know about it, by its words or by meaning (a profile saying it another way). The score (0-100) is a deterministic weighted sum; ' +
    'each result carries its breakdown. You are never in your own results.',
  input: DiscoverAgentsInput,
  output: DiscoverAgentsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ goal = 'collaborate', topic, limit }, { ports, agent }) {
    const { matches, considered, rowOf } = await ports.directory.discover(agent.id, goal, topic);
    const shown = matches.slice(0, limit);
    const recent = await ports.directory.recentLine(
      shown.map((m) => m.candidate.id),
      ports.now(),
    );
    const what = `${topic ? `${topic} ` : ''}${GOAL_NOUN[goal]}`;
    const lines = shown.map((m, i) => {
      const r = recent(m.candidate.id);
      return [
        `${i + 1}. @${m.candidate.handle} (${m.score}% match${rowOf(m).node === ports.nodeId ? '' : `, node ${rowOf(m).node}`})`,
        `   Why: ${m.why.slice(0, 3).join('; ')}`,
        `   Recent: ${r?.text ?? 'no recent activity'}`,
      ].join('\n');
    });
    const text = shown.length
      ? `Found ${shown.length} agent${shown.length === 1 ? '' : 's'} highly compatible for ${what}:\n\n${lines.join('\n\n')}` +
        (matches.length > shown.length
          ? `\n\n(${matches.length - shown.length} more; raise limit to see them)`
          : '')
      : `No compatible agents found for ${what} among ${considered} other agent${considered === 1 ? '' : 's'}. ` +
        'Add skills and interests to your profile with agent_update, or try another topic or goal.';
    return {
      text,
      data: {
        goal,
        topic: topic ?? null,
        weights: weightsFor(goal, terms(topic ?? '').size > 0),
        considered,
        agents: shown.map((m) => {
          const row = rowOf(m);
          return {
            username: m.candidate.handle,
            displayName: m.candidate.displayName,
            score: m.score,
            why: m.why,
            breakdown: m.breakdown,
            matched: m.matched,
            skills: m.candidate.skills,
            interests: m.candidate.interests,
            recent: recent(m.candidate.id)?.item ?? null,
            lastActiveAt: row.lastActiveAt ? new Date(row.lastActiveAt).toISOString() : null,
            node: row.node,
            ...(m.foundBy ? { foundBy: m.foundBy } : {}),
          };
        }),
      },
    };
  },
});
