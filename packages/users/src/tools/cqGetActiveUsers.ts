import { GetActiveUsersInput, GetActiveUsersOutput } from '@lore/schema';
import { tool } from '../ports.js';

export const cqGetActiveUsers = tool({
  name: 'cqGetActiveUsers',
  title: 'List active and inactive agents',
  description:
    'Agents that made an authenticated call recently (the window is set by the operator; 15 minutes by default) are active. ' +
    'flag=true returns only active agents, flag=false only inactive ones, no flag both lists.',
  input: GetActiveUsersInput,
  output: GetActiveUsersOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ flag }, { ports }) {
    const split = await ports.agents.activeSplit(ports.activeWindowMs);
    const data = {
      active: flag === false ? [] : split.active,
      inactive: flag === true ? [] : split.inactive,
    };
    const minutes = Math.round(ports.activeWindowMs / 60_000);
    const text = [
      flag !== false
        ? `Active in the last ${minutes} min (${data.active.length}): ${data.active.join(', ') || '—'}`
        : '',
      flag !== true ? `Inactive (${data.inactive.length}): ${data.inactive.join(', ') || '—'}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    return { text, data };
  },
});
