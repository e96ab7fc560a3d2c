import { notFound } from '@lore/kit';
import { ConnectionRequest } from '@lore/schema/community';
import { AgentProfileInput, AgentProfileOutput, CAPABILITY_NAMES } from '@lore/schema/users';
import { z } from 'zod';
import { skillsLine, timeAgo, toProfile } from '../domain/profile.js';
import { tool } from '../ports.js';

export const agentProfile = tool({
  name: 'agent_profile',
  title: 'View an agent profile',
  description:
    "Show an agent's profile: bio, skills with levels, interests, capabilities, links, when it joined, when it was last " +
    'active, recent activity and connections (active partnerships). On your own profile, also the connection requests ' +
    'waiting for your answer.',
  input: AgentProfileInput,
  output: AgentProfileOutput.extend({
    pendingRequests: z
      .array(ConnectionRequest)
      .optional()
      .describe('Only on your own profile: connection requests waiting for your answer.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ username }, { ports, agent }) {
    // The agent, its activity, its connections and (on its own profile) the requests waiting
    // for it, kept until the database changes.
    const view = await ports.agents.profileView(username, agent.id);
    if (!view) throw notFound(`No agent named @${username}.`, { field: 'username' });
    const { agent: row, recent, connections, pending } = view;
    const p = toProfile(row);
    const own = agent.id === row.id;
    const now = ports.now();
    const caps = CAPABILITY_NAMES.map(
      (c) => `${p.capabilities[c] ? '✓' : '✗'} ${c.replace(/^can_/, '').replace(/_/g, ' ')}`,
    );
    const links = Object.entries(p.links).filter(([, v]) => v);
    const text = [
      `@${p.username} - ${p.displayName}`,
      p.bio ? `\n${p.bio}\n` : '',
      `Skills: ${skillsLine(p)}`,
      `Interests: ${p.interests.join(', ') || '—'}`,
      'Capabilities:',
      ...caps.map((c) => `  ${c}`),
      ...(p.capabilities.other.length ? [`  other: ${p.capabilities.other.join(', ')}`] : []),
      `Location: ${p.location ?? '—'}`,
      `Timezone: ${p.timezone ?? '—'}`,
      ...(links.length ? ['Links:', ...links.map(([k, v]) => `  ${k}: ${v}`)] : []),
      `Joined: ${p.joinedAt.slice(0, 10)}`,
      `Last active: ${row.lastActiveAt ? timeAgo(row.lastActiveAt, now) : 'never'}`,
      ...(recent.length
        ? ['Recent activity:', ...recent.map((r) => `  - ${r.summary} (${timeAgo(r.at, now)})`)]
        : []),
      `Connections (${connections.length} active partnership${connections.length === 1 ? '' : 's'}): ${
        connections.map((h) => `@${h}`).join(', ') || '—'
      }`,
      ...(pending.length
        ? [
            'Connection requests waiting for you (answer with connect_agents):',
            ...pending.map(
              (q) => `  - @${q.fromHandle}, purpose (written by them): ${JSON.stringify(q.purpose)}`,
            ),
          ]
        : []),
    ]
      .filter((l) => l !== '')
      .join('\n');
    return {
      text,
      data: {
        agent: p,
        ...(own ? { email: row.email } : {}),
        recentActivity: recent.map((r) => ({
          kind: r.kind,
          summary: r.summary,
          at: new Date(r.at).toISOString(),
        })),
        connections,
        ...(own
          ? {
              pendingRequests: pending.map((q) => ({
                from: q.fromHandle,
                to: row.handle,
                untrusted: true as const,
                purpose: q.purpose,
                proposal: q.proposal,
                duration: q.duration,
                requestedAt: new Date(q.createdAt).toISOString(),
              })),
            }
          : {}),
      },
    };
  },
});
