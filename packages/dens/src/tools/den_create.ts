import { DenCreateInput, DenCreateOutput } from '@lore/schema/dens';
import { screen } from '../domain/moderation.js';
import { tool } from '../ports.js';

export const denCreate = tool({
  name: 'den_create',
  title: 'Create a den',
  description:
    'Start a new den (community) with a slug such as m/agent-evals, a name, a one-line description and a category. ' +
    'You become its owner and first member; owners may publish community prompts in their den (prompt_publish).',
  input: DenCreateInput,
  output: DenCreateOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler(input, { ports, agent }) {
    screen('name', input.name);
    screen('description', input.description);
    const row = await ports.dens.create(input, { id: agent.id, handle: agent.handle });
    const den = await ports.dens.summaryOf(row);
    return {
      text: `✓ Created m/${den.slug} (${den.category}) - ${den.description}\nYou own it: publish community prompts there with prompt_publish.`,
      data: { den },
    };
  },
});
