import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { KnowledgeRpc, KnowledgeSourceAdded, statsRpc } from '@lore/schema';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

const QUANTUM =
  'Quantum computing uses qubits in superposition and entanglement. The latest developments in quantum computing include ' +
  'error-corrected logical qubits on superconducting processors and better trapped-ion gate fidelity.';

describe('knowledge through the aggregator', () => {
  const dir = tempDir();
  const root = join(dir.path, 'kb');
  let lore: AllInOne;
  let anon: Client;
  let bob: Client;
  let carol: Client;
  let bobId: string;
  let carolId: string;
  const events: string[] = [];

  const join2 = async (handle: string) => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: handle,
    });
    return { id: r.data.agent.id, client: await connectClient(appFetch(lore.app), { key: r.data.apiKey }) };
  };

  beforeAll(async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(dir.path, 'outside.txt'), 'private notes outside the allowed root');
    symlinkSync(join(dir.path, 'outside.txt'), join(root, 'link.txt'));
    const config = testConfig(join(dir.path, 'data'), {
      LORE_KNOWLEDGE_ROOTS: root,
      LORE_RATE_LIMITS: 'false',
    });
    lore = await startAllInOne(config, {
      services: [
        { name: 'users', create: createUsersService },
        { name: 'knowledge', create: (deps) => createKnowledgeService(deps) },
      ],
    });
    await lore.bus.listen('lore.knowledge.>', (e) => events.push(e.subject));
    anon = await connectClient(appFetch(lore.app));
    ({ client: bob, id: bobId } = await join2('bob'));
    ({ client: carol, id: carolId } = await join2('carol'));
  });
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  it('serves every knowledge tool in the one catalog', async () => {
    const names = (await bob.listTools()).tools.map((t) => t.name);
    for (const n of [
      'updateKnowledgeSources',
      'listKnowledgeSources',
      'removeKnowledgeSource',
      'searchKnowledge',
      'article_search',
      'article_publish',
      'article_get',
    ])
      expect(names).toContain(n);
  });

  it("runs the mission's example: bob adds quantum_computing.txt, and his node can draft from it while carol's cannot", async () => {
    const r = await ok(bob, 'updateKnowledgeSources', {
      file_name: 'quantum_computing.txt',
      file_content: QUANTUM,
    });
    expect(r.text.split('\n')[0]).toBe(
      "RAG resource 'quantum_computing.txt' added successfully and vector database refreshed.",
    );
    await ok(carol, 'updateKnowledgeSources', {
      file_name: 'sourdough.md',
      file_content: '# Sourdough\n\nFeed the starter flour and water daily; bake when it doubles.',
    });
    const question = 'What are the latest developments in quantum computing?';
    const b = (await lore.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: bobId,
      query: question,
    })) as {
      passages: Array<{ source: string; relevant: boolean }>;
    };
    const c = (await lore.bus.request(KnowledgeRpc.retrieve.subject, {
      agentId: carolId,
      query: question,
    })) as {
      passages: Array<{ relevant: boolean }>;
    };
    expect(b.passages[0]).toMatchObject({ source: 'quantum_computing.txt', relevant: true });
    expect(c.passages.some((p) => p.relevant)).toBe(false);
    await vi.waitFor(() =>
      expect(events.filter((s) => s === KnowledgeSourceAdded.subject).length).toBeGreaterThanOrEqual(2),
    );
  });

  it("keeps each agent's sources private", async () => {
    expect(
      (await ok<{ sources: Array<{ name: string }> }>(carol, 'listKnowledgeSources')).data.sources.map(
        (s) => s.name,
      ),
    ).toEqual(['sourdough.md']);
    expect(
      (await ok<{ passages: unknown[] }>(carol, 'searchKnowledge', { query: 'quantum qubits' })).data
        .passages,
    ).toEqual([]);
    expect(
      (await call(carol, 'removeKnowledgeSource', { source: 'quantum_computing.txt' })).error?.code,
    ).toBe(404);
    expect(
      (
        await ok<{ passages: Array<{ source: string }> }>(bob, 'searchKnowledge', {
          query: 'trapped-ion gate fidelity',
        })
      ).data.passages[0]?.source,
    ).toBe('quantum_computing.txt');
  });

  it('refuses a file_path escaping the allowed root with 403', async () => {
    expect(
      (await call(bob, 'updateKnowledgeSources', { file_path: join(root, 'link.txt') })).error?.code,
    ).toBe(403);
    expect(
      (await call(bob, 'updateKnowledgeSources', { file_path: `${root}/../outside.txt` })).error?.code,
    ).toBe(403);
  });

  it("searches Lore's own articles and publishes new ones", async () => {
    const s = await ok<{ results: Array<{ slug: string; author: string }> }>(bob, 'article_search', {
      query: 'getting started register',
      category: 'guides',
    });
    expect(s.data.results[0]).toMatchObject({ slug: 'getting-started', author: 'lore' });
    await ok(bob, 'article_publish', {
      title: 'Error correction primer',
      content:
        'Surface codes protect logical qubits by measuring stabilisers; thresholds near one percent make them practical.',
      category: 'technical',
      tags: ['quantum'],
    });
    const mine = await ok<{ results: Array<{ author: string; untrusted: boolean }> }>(
      carol,
      'article_search',
      { query: 'surface codes stabilisers', tags: ['quantum'] },
    );
    expect(mine.data.results[0]).toMatchObject({ author: 'bob', untrusted: true });
  });

  it('answers rpc.knowledge.stats', async () => {
    const r = (await lore.bus.request(statsRpc('knowledge').subject, {
      since: new Date(Date.now() - 60_000).toISOString(),
    })) as { figures: Record<string, number> };
    // Lore's own shipped articles, seeded at start, and the one bob published above.
    const shipped = readdirSync(new URL('../../../packages/knowledge/articles/', import.meta.url)).filter(
      (f) => f.endsWith('.md'),
    ).length;
    expect(r.figures).toMatchObject({ sources: 2, agentsWithKnowledge: 2, articlesToday: shipped + 1 });
  });
});
