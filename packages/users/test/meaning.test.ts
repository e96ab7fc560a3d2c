import type { LoreService } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUsersService } from '../src/index.js';

const PROFILES = [
  {
    username: 'barista_bot',
    bio: 'Dialling in espresso: grind size, dose and extraction time for a balanced shot.',
    skills: [{ name: 'espresso extraction', level: 'expert' }],
    interests: ['specialty coffee'],
  },
  {
    username: 'solar_installer',
    bio: 'Designs rooftop photovoltaic systems with inverters and home batteries.',
    skills: [{ name: 'photovoltaics', level: 'expert' }],
    interests: ['renewable energy'],
  },
  {
    username: 'dog_trainer',
    bio: 'Trains puppies: house-breaking, leash walking, recall and obedience.',
    skills: [{ name: 'dog training', level: 'intermediate' }],
    interests: ['pets'],
  },
];

interface Found {
  username: string;
  foundBy?: string[];
}

async function start(env: Record<string, string>) {
  const t = testDeps({ LORE_RATE_LIMITS: 'false', ...env });
  const service: LoreService = await createUsersService(t.deps, { statsTimeoutMs: 300 });
  await service.start();
  const anon = await connectClient(appFetch(service.app));
  for (const p of PROFILES)
    await ok(anon, 'agent_register', { ...p, email: `${p.username}@example.com`, displayName: p.username });
  const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
    username: 'asker',
    email: 'asker@example.com',
    displayName: 'Asker',
  });
  const asker = await connectClient(appFetch(service.app), { key: r.data.apiKey });
  return {
    asker,
    async close() {
      await service.stop();
      await t.cleanup();
    },
  };
}

const search = async (c: Client, query: string) =>
  (
    await ok<{ agents: Array<{ username: string; match: { foundBy?: string[]; why: string } }> }>(
      c,
      'agent_search',
      { query },
    )
  ).data.agents;
const discover = async (c: Client, topic: string) =>
  (await ok<{ agents: Found[] }>(c, 'discover_agents', { topic })).data.agents;
const skills = async (c: Client, skill: string) =>
  (await ok<{ agents: Found[] }>(c, 'skill_search', { skill })).data.agents;

async function eventually(check: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('agents found by meaning (local model, over MCP)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ LORE_EMBEDDINGS: 'local' });
    // Profiles are searchable by words at once; their vectors follow in the background.
    await eventually(async () =>
      (await search(s.asker, 'someone who can help me pull a better coffee shot')).some((a) =>
        a.match.foundBy?.includes('meaning'),
      ),
    );
  }, 180_000);
  afterAll(() => s.close());

  it('agent_search finds a profile that says the query in other words, marked as found by meaning', async () => {
    const hits = await search(s.asker, 'someone who can help me pull a better coffee shot');
    expect(hits[0]!.username).toBe('barista_bot');
    expect(hits[0]!.match.foundBy).toEqual(['meaning']);
    expect(hits[0]!.match.why).toMatch(/close in meaning/);
    const both = await search(s.asker, 'espresso');
    expect(both[0]!.username).toBe('barista_bot');
    expect(both[0]!.match.foundBy).toContain('words');
  });

  it('discover_agents counts a topic said another way', async () => {
    const hits = await discover(s.asker, 'putting solar panels on my roof');
    expect(hits[0]!.username).toBe('solar_installer');
    expect(hits[0]!.foundBy).toContain('meaning');
    expect(hits.map((h) => h.username)).not.toContain('asker');
  });

  it('skill_search finds a skill named otherwise', async () => {
    const hits = await skills(s.asker, 'puppy obedience');
    expect(hits[0]!.username).toBe('dog_trainer');
    expect(hits[0]!.foundBy).toEqual(['meaning']);
  });
});

describe('agents found by words alone (LORE_EMBEDDINGS=off)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start({ LORE_EMBEDDINGS: 'off' });
  });
  afterAll(() => s.close());

  it('misses the paraphrase and still finds the words, marked as found by words', async () => {
    expect(await search(s.asker, 'someone who can help me pull a better coffee shot')).toEqual([]);
    const hits = await search(s.asker, 'espresso');
    expect(hits.map((h) => h.username)).toEqual(['barista_bot']);
    expect(hits[0]!.match.foundBy).toEqual(['words']);
    expect((await discover(s.asker, 'photovoltaics'))[0]).toMatchObject({
      username: 'solar_installer',
      foundBy: ['words'],
    });
    expect((await skills(s.asker, 'dog training'))[0]).toMatchObject({
      username: 'dog_trainer',
      foundBy: ['words'],
    });
    expect(await skills(s.asker, 'puppy obedience')).toEqual([]);
  });
});
