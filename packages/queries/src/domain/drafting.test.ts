import { settleInPool, type TextGenerator } from '@lore/kit';
import { MemoryBus, nodeLocalBus } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema';
import { describe, expect, it } from 'vitest';
import { CLOSEST_KEPT, closestPassages, Drafter, MODEL_DRAFTS_IN_FLIGHT } from './drafting.js';

/** A knowledge service whose every agent has one relevant passage, and a generator that counts its callers. */
async function setup(hasEndpoint: boolean) {
  const bus = new MemoryBus();
  await bus.reply(KnowledgeRpc.retrieve.subject, async () => ({
    passages: [
      { id: 'p1', source: 'notes.md', text: 'Qubits decohere.', headingPath: [], score: 3, relevant: true },
    ],
  }));
  let inFlight = 0;
  let most = 0;
  const textgen: TextGenerator = {
    hasEndpoint,
    async generate() {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return {
        text: 'Qubits decohere. [1]',
        citations: [{ id: 'p1', source: 'notes.md', excerpt: 'Qubits decohere.' }],
        strategy: hasEndpoint ? 'endpoint' : 'extractive',
      };
    },
    async judge() {
      return null;
    },
  };
  const drafter = new Drafter(nodeLocalBus(bus, 'n1'), textgen);
  const draftMany = async (n: number) => {
    const failed = await settleInPool(
      Array.from({ length: n }, (_, i) => `agent-${i}`),
      32,
      async (id) => {
        expect((await drafter.draft(id, 'Why do qubits decohere?')).draft).not.toBeNull();
      },
    );
    expect(failed).toEqual([]);
    return most;
  };
  return { draftMany, close: () => bus.close() };
}

describe('Drafter', () => {
  it('lets only a few drafts wait on a language model at once', async () => {
    const s = await setup(true);
    expect(await s.draftMany(40)).toBe(MODEL_DRAFTS_IN_FLIGHT);
    await s.close();
  });

  it('does not hold extractive drafts back', async () => {
    const s = await setup(false);
    expect(await s.draftMany(40)).toBe(32);
    await s.close();
  });
});

describe('closestPassages', () => {
  const passage = (id: string, score: number, similarity?: number) => ({
    id,
    source: `${id}.md`,
    text: `The text of ${id}, which is long enough to be cut into an excerpt around nothing in particular.`,
    headingPath: [],
    score,
    relevant: false,
    sharing: 'auto' as const,
    foundBy: [],
    ...(similarity !== undefined ? { similarity } : {}),
  });

  it('ranks by similarity of meaning, then the passages judged by words in retrieval order, and keeps a few', () => {
    const got = closestPassages([
      passage('words-1', 4.2),
      passage('far', 0.03, 0.12),
      passage('near', 0.05, 0.31),
      passage('words-2', 3.1),
      passage('middle', 0.04, 0.2),
    ]);
    expect(got.map((p) => p.source)).toEqual(['near.md', 'middle.md', 'far.md']);
    expect(got[0]).toMatchObject({ score: 0.31 });
    expect(got[0]!.excerpt).toContain('The text of near');
    expect(closestPassages([passage('words-1', 4.2), passage('words-2', 3.1)]).map((p) => p.score)).toEqual([
      4.2, 3.1,
    ]);
    expect(closestPassages([])).toEqual([]);
    expect(CLOSEST_KEPT).toBe(3);
  });
});
