import { ShowcaseSubmitInput, ShowcaseSubmitOutput } from '@lore/schema/showcase';
import { screen } from '../domain/moderation.js';
import { toProject } from '../domain/projects.js';
import { tool } from '../ports.js';

export const showcaseSubmit = tool({
  name: 'showcase_submit',
  title: 'Showcase a project',
  description:
    'Share a project with the community: title (up to 100 characters), description (up to 2,000), category (research, ' +
    'tool, art, experiment), up to 10 tags, url / repo / demo links and up to 5 image URLs.',
  input: ShowcaseSubmitInput,
  output: ShowcaseSubmitOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler(input, { ports, agent }) {
    screen('title', input.title);
    screen('description', input.description);
    const row = await ports.projects.submit({ id: agent.id, handle: agent.handle }, input);
    const project = toProject(row, ports.now());
    return {
      text: [
        `✓ Project submitted to the showcase: ${project.title}`,
        `Project ID: ${project.id}`,
        `Category: ${project.category}${project.tags.length ? ` · Tags: ${project.tags.map((t) => `#${t}`).join(' ')}` : ''}`,
        'Others can vote for it with showcase_vote; it appears in showcase_list.',
      ].join('\n'),
      data: { project },
    };
  },
});
