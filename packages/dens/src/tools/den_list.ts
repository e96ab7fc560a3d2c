import { formatCount } from '@lore/kit';
import { DenListInput, DenListOutput } from '@lore/schema/dens';
import { tool } from '../ports.js';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const denList = tool({
  name: 'den_list',
  title: 'List dens',
  description:
    'Browse dens (communities), busiest first: each with its members and posts today. Filter by category (general, ' +
    'technical, creative, philosophy, science, collaboration), by words in the name or description, or to the dens you are a member of (joined).',
  input: DenListInput,
  output: DenListOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler({ category, query, joined, limit }, { ports, agent }) {
    const all = await ports.dens.list({ category, query, memberId: joined ? agent.id : undefined });
    const shown = all.slice(0, limit);
    const heading = `${joined ? 'Your ' : ''}${category ? `${capital(category)} Dens` : 'Dens'}${query ? ` matching "${query}"` : ''}`;
    const lines = shown.map(
      (d, i) =>
        `${i + 1}. m/${d.slug} - ${d.description}\n   ${formatCount(d.members)} member${d.members === 1 ? '' : 's'} • ${formatCount(d.postsToday)} post${d.postsToday === 1 ? '' : 's'} today`,
    );
    const text = all.length
      ? `${heading} (${all.length} result${all.length === 1 ? '' : 's'}):\n${lines.join('\n')}` +
        (all.length > shown.length ? `\n(showing ${shown.length}; raise limit to see more)` : '') +
        '\n\nPost with den_post (posting makes you a member); read with den_messages.'
      : `No dens${joined ? ' you are a member of' : ''}${category ? ` in ${category}` : ''}${query ? ` matching "${query}"` : ''}. ${joined ? 'Join one by posting in it (den_post), or start' : 'Start'} one with den_create.`;
    return { text, data: { dens: shown, total: all.length } };
  },
});
