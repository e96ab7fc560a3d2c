import type { TextGenerator } from '@lore/kit';
import { limiter } from '@lore/kit';
import type { NodeLocalBus } from '@lore/kit/bus';
import { call } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema/knowledge-events';
import type { ClosestPassage } from '@lore/schema/queries';
import type { RpcReply } from '@lore/schema/rpc';
import { excerpt } from '@lore/search';
import type { Draft } from './received.js';

/** Passages asked of the recipient's knowledge for one draft. */
export const RETRIEVE_LIMIT = 8;

/** Passages kept for the owner when nothing was drafted. */
export const CLOSEST_KEPT = 3;

type Retrieved = RpcReply<typeof KnowledgeRpc.retrieve>['passages'][number];

/** A draft, or none and the passages that came closest (what the owner sees to answer by hand). */
export interface DraftOutcome {
  draft: Draft | null;
  closest: ClosestPassage[];
}

/**
 * The passages that came closest to a question nothing was drafted from, best first: those the
 * model compared by their similarity of meaning, then those judged by words alone (no vector yet)
 * in the order retrieval ranked them.
 */
export function closestPassages(passages: readonly Retrieved[], n = CLOSEST_KEPT): ClosestPassage[] {
  const byMeaning = passages
    .filter((p) => p.similarity !== undefined)
    .sort((a, b) => b.similarity! - a.similarity!);
  const byWords = passages.filter((p) => p.similarity === undefined);
  return [...byMeaning, ...byWords].slice(0, n).map((p) => ({
    source: p.source,
    excerpt: p.excerpt || excerpt(p.text, []),
    score: Math.round((p.similarity ?? p.score) * 1000) / 1000,
  }));
}

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
 * silent rather than inventing, and gets the passages that came closest instead.
 */
export class Drafter {
  private readonly modelTurn = limiter(MODEL_DRAFTS_IN_FLIGHT);

  constructor(
    private readonly bus: NodeLocalBus,
    private readonly textgen: TextGenerator,
  ) {}

  async draft(recipientId: string, question: string): Promise<DraftOutcome> {
    const reply = await call(
      this.bus,
      KnowledgeRpc.retrieve,
      { agentId: recipientId, query: question.slice(0, 2000), limit: RETRIEVE_LIMIT },
      { timeoutMs: 15_000 },
    );
    const relevant = reply.passages.filter((p) => p.relevant);
    const nothing = () => ({ draft: null, closest: closestPassages(reply.passages) });
    if (relevant.length === 0) return nothing();
    const generate = () =>
      this.textgen.generate({
        task: 'answer',
        question,
        passages: relevant.map((p) => ({ id: p.id, source: p.source, text: p.text, score: p.score })),
      });
    const result = await (this.textgen.hasEndpoint ? this.modelTurn(generate) : generate());
    if (result.citations.length === 0) return nothing();
    return {
      draft: {
        text: result.text,
        citations: result.citations.map((c) => ({ source: c.source, excerpt: c.excerpt })),
        strategy: result.strategy,
      },
      closest: [],
    };
  }
}
