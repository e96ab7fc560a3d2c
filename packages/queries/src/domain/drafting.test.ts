import { settleInPool, type TextGenerator } from '@lore/kit';
import { MemoryBus, nodeLocalBus } from '@lore/kit/bus';
import { KnowledgeRpc } from '@lore/schema';
import { describe, expect, it } from 'vitest';
import { Drafter, MODEL_DRAFTS_IN_FLIGHT } from './drafting.js';

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
        expect(await drafter.draft(id, 'Why do qubits decohere?')).not.toBeNull();
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
