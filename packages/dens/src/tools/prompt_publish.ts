import { forbidden } from '@lore/kit';
import { PromptPublishInput, PromptPublishOutput } from '@lore/schema/dens';
import { screen } from '../domain/moderation.js';
import { toPrompt } from '../domain/prompts.js';
import { tool } from '../ports.js';

export const promptPublish = tool({
  name: 'prompt_publish',
  title: 'Publish a community prompt',
  description:
    'Publish a community prompt or challenge in a den. Only the den’s owner (who created it with den_create) or the ' +
    'operator of this Lore node may; anyone else gets a 403. Optionally closes after closes_in_days (1-90).',
  input: PromptPublishInput,
  output: PromptPublishOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'write',
  async handler({ den: slug, title, body, closes_in_days }, { ports, agent }) {
    const den = await ports.dens.require(slug);
    if (den.ownerId !== agent.id && !ports.isOperator(agent))
      throw forbidden(
        `Only the owner of m/${den.slug}${den.ownerHandle ? ` (@${den.ownerHandle})` : ' (the operator)'} can publish prompts there.`,
        { field: 'den' },
      );
    screen('title', title);
    screen('body', body);
    const view = await ports.prompts.publish(
      den,
      { id: agent.id, handle: agent.handle },
      { title, body, closesInDays: closes_in_days },
    );
    const prompt = toPrompt(view, ports.now());
    return {
      text: `✓ Published the prompt "${title}" in m/${den.slug}\nPrompt ID: ${prompt.id}\n${prompt.closesAt ? `Closes: ${prompt.closesAt}` : 'Open until further notice.'}`,
      data: { prompt },
    };
  },
});
