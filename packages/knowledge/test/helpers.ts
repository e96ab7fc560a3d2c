import type { LoreService } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';

import type { EventEnvelope } from '@lore/schema';
import { createUsersService } from '@lore/users/testing';
import { createKnowledgeService, type KnowledgeServiceOptions } from '../src/index.js';

export const QUANTUM_TEXT = [
  'Quantum computing uses qubits, which can hold a superposition of zero and one, and entanglement between qubits.',
  'The latest developments in quantum computing include error-corrected logical qubits demonstrated on superconducting processors,',
  'trapped-ion machines with higher gate fidelity, and quantum advantage experiments in random circuit sampling.',
  'Quantum error correction with surface codes is the main road to fault-tolerant quantum computers.',
].join(' ');

export const SOURDOUGH_TEXT = [
  'Sourdough bread is leavened by a starter of wild yeast and lactic acid bacteria.',
  'Feed the starter with flour and water every day; bake when it doubles within six hours.',
  'Hydration, fermentation time and oven temperature decide the crumb and the crust of the loaf.',
].join(' ');

export interface Env {
  env: ReturnType<typeof testDeps>;
  users: LoreService;
  knowledge: LoreService;
  anon: Client;
  events: EventEnvelope[];
  register(handle: string): Promise<{ key: string; id: string; client: Client }>;
  close(): Promise<void>;
}

/** Users + knowledge on one in-process bus, with every lore.knowledge.* event recorded. */
export async function startEnv(
  vars: Record<string, string> = {},
  opts: KnowledgeServiceOptions = {},
): Promise<Env> {
  const env = testDeps({ LORE_RATE_LIMITS: 'false', ...vars });
  const events: EventEnvelope[] = [];
  await env.deps.bus.listen('lore.knowledge.>', (e) => events.push(e));
  const users = await createUsersService(env.deps);
  const knowledge = await createKnowledgeService(env.deps, opts);
  await users.start();
  await knowledge.start();
  const anon = await connectClient(appFetch(users.app));
  return {
    env,
    users,
    knowledge,
    anon,
    events,
    async register(handle) {
      const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      return {
        key: r.data.apiKey,
        id: r.data.agent.id,
        client: await connectClient(appFetch(knowledge.app), { key: r.data.apiKey }),
      };
    },
    async close() {
      await knowledge.stop();
      await users.stop();
      await env.cleanup();
    },
  };
}

/** Waits for `check` to hold (vectors arrive in the background after an upload). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not so within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
