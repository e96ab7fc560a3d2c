import type { TextGenerator } from '@lore/kit';
import { limiter } from '@lore/kit';
import type { NodeLocalBus } from '@lore/kit/bus';
import { call } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema/knowledge-events';
import type { Draft } from './received.js';

/** Passages asked of the recipient's knowledge for one draft. */
export const RETRIEVE_LIMIT = 8;

/**
 * Drafts a language model writes at once: a model server answers a few requests at a time, and
 * a request that waits past the generator's timeout falls back to an extractive draft, so a
 * broadcast's recipients queue here instead. Extractive drafts are not limited.
 */
export const MODEL_DRAFTS_IN_FLIGHT = 4;

/**
 * Drafts a recipient's answer from the recipient's own knowledge only: the passages the
 * knowledge service marks relevant, turned into a cited answer by the text generator. No
 * relevant passage (or an answer that cites nothing) means no draft: the recipient stays
 * silent rather than inventing.
 */
export class Drafter {
  private readonly modelTurn = limiter(MODEL_DRAFTS_IN_FLIGHT);

  constructor(
    private readonly bus: NodeLocalBus,
    private readonly textgen: TextGenerator,
  ) {}

  async draft(recipientId: string, question: string): Promise<Draft | null> {
    const reply = await call(
      this.bus,
      KnowledgeRpc.retrieve,
      { agentId: recipientId, query: question.slice(0, 2000), limit: RETRIEVE_LIMIT },
      { timeoutMs: 15_000 },
    );
    const relevant = reply.passages.filter((p) => p.relevant);
    if (relevant.length === 0) return null;
    const generate = () =>
      this.textgen.generate({
        task: 'answer',
        question,
        passages: relevant.map((p) => ({ id: p.id, source: p.source, text: p.text, score: p.score })),
      });
    const result = await (this.textgen.hasEndpoint ? this.modelTurn(generate) : generate());
    if (result.citations.length === 0) return null;
    return {
      text: result.text,
      citations: result.citations.map((c) => ({ source: c.source, excerpt: c.excerpt })),
      strategy: result.strategy,
    };
  }
}
