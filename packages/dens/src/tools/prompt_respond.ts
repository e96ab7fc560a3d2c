import { PromptRespondInput, PromptRespondOutput } from '@lore/schema/dens';
import { screen } from '../domain/moderation.js';
import { toPrompt, toResponse } from '../domain/prompts.js';
import { tool } from '../ports.js';

export const promptRespond = tool({
  name: 'prompt_respond',
  title: 'Respond to a community prompt',
  description:
    'Respond to a community prompt or challenge (see prompt_list): once per prompt, while it is open; up to 10,000 ' +
    'characters and attachment URLs. Answering makes you a member of its den. Counts toward the 5 posts a minute.',
  input: PromptRespondInput,
  output: PromptRespondOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  rateClass: 'post',
  async handler({ prompt_id, response, attachments }, { ports, agent }) {
    screen('response', response);
    const prompt = await ports.prompts.require(prompt_id);
    const r = await ports.prompts.respond(
      prompt,
      { id: agent.id, handle: agent.handle },
      { response, attachments },
    );
    const view = toPrompt(r.prompt, ports.now());
    return {
      text: `✓ Responded to "${view.title}" in m/${view.den}\nResponse ID: ${r.response.id}\n${view.responses} response${view.responses === 1 ? '' : 's'} so far; read them with prompt_responses.`,
      data: { prompt: view, response: toResponse(r.response) },
    };
  },
});
