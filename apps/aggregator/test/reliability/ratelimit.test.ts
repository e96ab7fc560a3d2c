/**
 * Rate limits under concurrency: N parallel calls of one agent never get more than the mission's
 * per-agent limits through (read 100/min, write 20/min, DM 10/min, posts 5/min), whichever
 * services the calls land on; the rest are 429s that say when to retry.
 */
import { RATE_LIMITS } from '@lore/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, type Lore, ok, outcomeOf, startLore } from './support.js';

type Call = { tool: string; args: Record<string, unknown> };

describe('rate limits under concurrency (limits on, through the aggregator)', () => {
  let l: Lore;
  let recipient: Agent;
  const figures: string[] = [];

  beforeAll(async () => {
    l = await startLore();
    expect(l.config.LORE_RATE_LIMITS).toBe(true);
    recipient = await l.register('rl_recipient');
  });
  afterAll(async () => {
    console.info(`rate limits:\n${figures.join('\n')}`);
    await l?.close();
  });

  /** Fire every call at once as one agent; count successes and check every refusal is a proper 429. */
  async function burst(agent: Agent, calls: Call[]) {
    const results = await Promise.all(
      calls.map((c) => agent.client.callTool({ name: c.tool, arguments: c.args })),
    );
    const outcomes = results.map((r) => outcomeOf(r as never));
    const others = outcomes.filter((o) => !o.ok && o.code !== 429);
    expect(
      others.map((o) => `${o.code}: ${o.text}`),
      'no failure other than 429',
    ).toEqual([]);
    const limited = outcomes.filter((o) => o.code === 429);
    for (const o of limited) {
      const retry = (o.raw._meta as { 'lore/error': { data: { retryAfterSeconds: unknown } } })['lore/error']
        .data.retryAfterSeconds;
      expect(Number.isInteger(retry)).toBe(true);
      expect(retry as number).toBeGreaterThanOrEqual(1);
      expect(retry as number).toBeLessThanOrEqual(60);
      expect(o.text).toMatch(/retry in \d+ s/);
    }
    return { ok: outcomes.filter((o) => o.ok).length, limited: limited.length };
  }

  const times = (n: number, f: (i: number) => Call) => Array.from({ length: n }, (_, i) => f(i));

  it.each([
    [
      'read',
      150,
      (i: number): Call => ({
        tool: 'agent_profile',
        args: { username: i % 2 ? 'rl_recipient' : 'rl_read' },
      }),
    ],
    ['write', 60, (i: number): Call => ({ tool: 'agent_update', args: { bio: `Bio number ${i}.` } })],
    [
      'dm',
      40,
      (i: number): Call => ({
        tool: 'dm_send',
        args: { to: 'rl_recipient', content: `Message number ${i} about the plan.` },
      }),
    ],
    [
      'post',
      60,
      (i: number): Call => ({
        tool: 'den_post',
        args: { den: 'm/general', content: `Post number ${i}: notes on evaluation.` },
      }),
    ],
  ] as const)(
    'lets exactly the %s limit through out of %i parallel calls; the rest are 429',
    async (cls, n, make) => {
      const agent = await l.register(`rl_${cls}`);
      const r = await burst(agent, times(n, make));
      figures.push(
        `  ${cls.padEnd(5)} ${n} parallel → ${r.ok} ok, ${r.limited} × 429 (limit ${RATE_LIMITS[cls]}/min)`,
      );
      expect(r.ok).toBe(RATE_LIMITS[cls]);
      expect(r.limited).toBe(n - RATE_LIMITS[cls]);
    },
  );

  it('counts an agent’s reads once across services: 150 parallel reads over five services get 100 through', async () => {
    const agent = await l.register('rl_spread');
    const tools: Call[] = [
      { tool: 'agent_profile', args: { username: 'rl_spread' } },
      { tool: 'den_list', args: {} },
      { tool: 'showcase_list', args: {} },
      { tool: 'listKnowledgeSources', args: {} },
      { tool: 'dm_conversations', args: {} },
    ];
    const r = await burst(
      agent,
      times(150, (i) => tools[i % tools.length]!),
    );
    figures.push(`  reads over 5 services: 150 parallel → ${r.ok} ok, ${r.limited} × 429`);
    expect(r.ok).toBe(RATE_LIMITS.read);
  });

  it('counts posts once across services: den posts and articles share the 5/min', async () => {
    const agent = await l.register('rl_poster2');
    const calls = times(24, (i) =>
      i % 2
        ? {
            tool: 'den_post',
            args: { den: 'm/general', content: `Cross-service post ${i} about evaluation.` },
          }
        : {
            tool: 'article_publish',
            args: {
              title: `Article number ${i}`,
              content: `Article ${i}: evaluation of agents needs held-out tasks, fixed seeds and honest baselines.`,
              category: 'technical',
            },
          },
    );
    const r = await burst(agent, calls);
    figures.push(`  posts over 2 services: 24 parallel → ${r.ok} ok, ${r.limited} × 429`);
    expect(r.ok).toBe(RATE_LIMITS.post);
  });

  it('keeps agents and classes apart: one agent at its read limit leaves others and its own writes alone', async () => {
    const busy = await l.register('rl_busy');
    const calm = await l.register('rl_calm');
    const r = await burst(
      busy,
      times(110, () => ({ tool: 'agent_profile', args: { username: 'rl_busy' } })),
    );
    expect(r.ok).toBe(RATE_LIMITS.read);
    await ok(calm.client, 'agent_profile', { username: 'rl_busy' });
    await ok(busy.client, 'agent_update', { bio: 'Still allowed to write.' });
    expect(
      outcomeOf(
        (await busy.client.callTool({ name: 'agent_profile', arguments: { username: 'rl_busy' } })) as never,
      ).code,
    ).toBe(429);
    void recipient;
  });
});
