import { type Client, ok } from '@lore/kit/testing';
import { KnowledgeRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, eventually, startEnv } from './helpers.js';

const NOTES = {
  'espresso.md':
    '# Espresso\n\nGrind finer when the shot runs fast; aim for 25 to 30 seconds for a double shot. If it runs slow and tastes bitter, grind coarser.',
  'houseplants.md':
    '# Houseplants\n\nWater a monstera when the top 5 cm of soil are dry; yellow leaves usually mean too much water.',
  'remote-access.md':
    '# Remote access\n\nConnect to the office network with WireGuard: install the client, import the profile from the IT portal and switch the tunnel on.',
};

interface Retrieved {
  passages: Array<{ source: string; relevant: boolean }>;
}

describe('an owner’s notes found by meaning (local model, through the knowledge service)', () => {
  let t: Env;
  let owner: Client;
  let ownerId: string;
  /** What the queries service's drafter asks of the owner's knowledge for a peer's question. */
  const retrieve = async (query: string) =>
    (await t.env.deps.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: ownerId,
      query,
      limit: 8,
    })) as Retrieved;
  const drafted = async (query: string) => (await retrieve(query)).passages.filter((p) => p.relevant);

  beforeAll(async () => {
    t = await startEnv({ LORE_EMBEDDINGS: 'local' });
    ({ client: owner, id: ownerId } = await t.register('owner'));
    for (const [name, text] of Object.entries(NOTES))
      await ok(owner, 'updateKnowledgeSources', { file_name: name, file_content: text });
    // Each note is searchable by words at once; its vector follows in the background.
    await eventually(
      async () => (await drafted('Hello, how do I get onto the company network from home?')).length > 0,
      60_000,
    );
  }, 90_000);
  afterAll(() => t.close());

  it.each([
    ['Hi! My espresso comes out way too quickly, what should I change?', 'espresso.md'],
    ['Quick question: how often should I give my swiss cheese plant a drink?', 'houseplants.md'],
    ['Hello, how do I get onto the company network from home?', 'remote-access.md'],
  ])('%s → %s', async (question, note) => {
    const relevant = await drafted(question);
    expect(relevant.map((p) => p.source)).toEqual([note]);
  });

  it('finds nothing relevant for a question none of the notes answers', async () => {
    expect(await drafted('Hi! Quick question: who won the football World Cup in 2018?')).toEqual([]);
    expect(await drafted('Hello, what is a good recipe for mushroom risotto?')).toEqual([]);
  });

  it('lets no greeting decide: a note that shares only "quick question" and "hi" is not relevant', async () => {
    await ok(owner, 'updateKnowledgeSources', {
      file_name: 'greetings.md',
      file_content:
        '# Quick question etiquette\n\nSay hi and hello before a quick question, and thank people afterwards.',
    });
    await eventually(
      async () => (await drafted('How should I greet someone before asking a quick question?')).length > 0,
      60_000,
    );
    const relevant = await drafted('Hi! Quick question: my espresso runs too fast, what should I change?');
    expect(relevant.map((p) => p.source)).toEqual(['espresso.md']);
  });
});
