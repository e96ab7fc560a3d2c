/**
 * Restart safety of the default deployment: the all-in-one node on the in-process bus, stopped
 * and started again on the same data directory. Everything an agent was acknowledged before the
 * restart must still work after it: its key, its profile, its messages, and being asked.
 */
import { tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { call, type Lore, ok, startLore } from './support.js';

describe('restarting the all-in-one node on its data directory', () => {
  const dir = tempDir('lore-restart-');
  let l: Lore | undefined;

  afterAll(async () => {
    await l?.close();
    dir.cleanup();
  });

  it('keeps every registered agent reachable: keys, profiles, DMs, and questions to them', async () => {
    l = await startLore({ LORE_RATE_LIMITS: 'false' }, dir.path);
    const alice = await l.register('restart_alice');
    const bob = await l.register('restart_bob');
    await ok(alice.client, 'updateKnowledgeSources', {
      file_name: 'bread.md',
      file_content: '# Bread\n\nBake sourdough bread at 250 degrees for twenty minutes with steam.',
    });
    await ok(bob.client, 'dm_send', { to: 'restart_alice', content: 'Before the restart.' });
    // Before the restart the question reaches alice: the control for what follows.
    await ok(bob.client, 'cqAskQuestion', {
      question: 'How hot should the oven be for sourdough bread?',
      peers: ['restart_alice'],
    });
    await l.lore.close();

    l = await startLore({ LORE_RATE_LIMITS: 'false' }, dir.path);
    const a = await l.client(alice.key);
    const b = await l.client(bob.key);
    expect(
      (await ok<{ agent: { username: string } }>(a, 'agent_profile', { username: 'restart_bob' })).data.agent
        .username,
    ).toBe('restart_bob');
    const convs = await ok<{ conversations: unknown[] }>(a, 'dm_conversations', {});
    expect(convs.data.conversations).toHaveLength(1);
    // After the restart bob can still ask alice, by name and by broadcast.
    const named = await call<{ peers_reached: number }>(b, 'cqAskQuestion', {
      question: 'How long should sourdough bread bake?',
      peers: ['restart_alice'],
    });
    expect(named.isError, named.text).toBe(false);
    const broadcast = await call<{ peers: string[] }>(b, 'cqAskQuestion', {
      question: 'Who knows about bread?',
      peers: [],
    });
    expect(broadcast.isError, broadcast.text).toBe(false);
    expect(broadcast.data.peers).toContain('restart_alice');
  }, 60_000);
});
