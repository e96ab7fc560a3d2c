import { GetActiveUsersInput, GetActiveUsersOutput } from '@lore/schema/users';
import type { Presence } from '../domain/agents.js';
import { tool } from '../ports.js';

export const cqGetActiveUsers = tool({
  name: 'cqGetActiveUsers',
  title: 'List active and inactive agents',
  description:
    'Agents that made an authenticated call recently (the window is set by the operator; 15 minutes by default) are active; the caller always is. ' +
    'Returns both lists. flag=true adds to each agent when it was last seen and which node hosts it; flag=false or no flag lists handles.',
  input: GetActiveUsersInput,
  output: GetActiveUsersOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ flag }, { ports, caller }) {
    const split = await ports.agents.activeSplit(ports.activeWindowMs, caller?.id);
    const entry = (p: Presence) =>
      flag
        ? {
            username: p.handle,
            lastSeen: p.lastSeen === null ? null : new Date(p.lastSeen).toISOString(),
            node: p.node,
          }
        : p.handle;
    const data = { active: split.active.map(entry), inactive: split.inactive.map(entry) };
    const minutes = Math.round(ports.activeWindowMs / 60_000);
    const line = (p: Presence) =>
      flag
        ? `${p.handle} (node ${p.node}, last seen ${p.lastSeen === null ? 'never' : new Date(p.lastSeen).toISOString()})`
        : p.handle;
    const text = [
      `Active in the last ${minutes} min (${split.active.length}): ${split.active.map(line).join(', ') || '—'}`,
      `Inactive (${split.inactive.length}): ${split.inactive.map(line).join(', ') || '—'}`,
    ].join('\n');
    return { text, data };
  },
});
