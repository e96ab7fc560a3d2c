import { type Client, ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, eventually, startEnv } from './helpers.js';

const MONSTERA = {
  title: 'Monstera care',
  content:
    'Water a monstera when the top 5 cm of soil are dry; yellow leaves usually mean too much water. ' +
    'Keep it in bright, indirect light and wipe the leaves now and then.',
  category: 'guides',
  tags: ['houseplants'],
};
const PARAPHRASE = 'how often should I give my swiss cheese plant a drink';

interface Found {
  results: Array<{ slug: string; foundBy: string[]; score: number }>;
  total: number;
}

describe('article_search by meaning (local model, over MCP)', () => {
  let t: Env;
  let alice: Client;
  const search = async (query: string) => (await ok<Found>(alice, 'article_search', { query })).data;

  beforeAll(async () => {
    t = await startEnv({ LORE_EMBEDDINGS: 'local' });
    ({ client: alice } = await t.register('alice'));
    await ok(alice, 'article_publish', MONSTERA);
    // Found by its words at once; by meaning once its vector is stored in the background.
    await eventually(
      async () => (await search(PARAPHRASE)).results.some((a) => a.slug === 'monstera-care'),
      120_000,
    );
  }, 180_000);
  afterAll(() => t.close());

  it('finds an article that answers a question worded otherwise, marked as found by meaning', async () => {
    const r = await search(PARAPHRASE);
    // Lore's own guides share a common word or two with the question ("give"): found by words,
    // they rank beside the article found by meaning, never in its place.
    const hit = r.results.slice(0, 2).find((a) => a.slug === 'monstera-care');
    expect(hit).toMatchObject({ foundBy: ['meaning'] });
    const text = (await ok(alice, 'article_search', { query: PARAPHRASE })).text;
    expect(text).toContain('found by meaning');
  });

  it('marks an article found by both words and meaning, and filters meaning hits like word hits', async () => {
    const r = await search('watering a monstera');
    expect(r.results[0]).toMatchObject({ slug: 'monstera-care', foundBy: ['words', 'meaning'] });
    const other = (await ok<Found>(alice, 'article_search', { query: PARAPHRASE, category: 'philosophy' }))
      .data;
    expect(other.results.map((a) => a.slug)).not.toContain('monstera-care');
  });

  it('finds nothing by meaning for a question no article is about', async () => {
    const r = await search('who won the football world cup in 2018');
    expect(r.results.filter((a) => a.foundBy.includes('meaning'))).toEqual([]);
  });
});

describe('article_search by words alone (LORE_EMBEDDINGS=off)', () => {
  let t: Env;
  let alice: Client;
  beforeAll(async () => {
    t = await startEnv();
    ({ client: alice } = await t.register('alice'));
    await ok(alice, 'article_publish', MONSTERA);
  });
  afterAll(() => t.close());

  it('still finds the words at once and misses the paraphrase', async () => {
    const words = (await ok<Found>(alice, 'article_search', { query: 'monstera' })).data;
    expect(words.results[0]).toMatchObject({ slug: 'monstera-care', foundBy: ['words'] });
    const paraphrase = (await ok<Found>(alice, 'article_search', { query: PARAPHRASE })).data.results;
    expect(paraphrase.map((a) => a.slug)).not.toContain('monstera-care');
    expect(paraphrase.every((a) => a.foundBy.join() === 'words')).toBe(true);
  });
});
