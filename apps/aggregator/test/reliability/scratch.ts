import { startLore, outcomeOf } from './support.js';
const l = await startLore({ LORE_RATE_LIMITS: 'false' });
const a = await l.register('scratch_a');
try {
  const r = await a.client.callTool({ name: 'agent_update', arguments: { bio: 'x'.repeat(1_100_000) } });
  console.log('413 case result', JSON.stringify(r).slice(0, 300));
} catch (e) { console.log('413 case threw', (e as Error).constructor.name, (e as Error).message.slice(0, 300), (e as any).code); }
const r2 = await a.client.callTool({ name: 'agent_update', arguments: { bio: '\uD800 lone' } });
console.log(JSON.stringify(outcomeOf(r2 as any)).slice(0, 400));
const r3 = await a.client.callTool({ name: 'agent_update', arguments: { location: 5 } });
console.log(JSON.stringify(outcomeOf(r3 as any)).slice(0, 400));
// just under body limit
for (const n of [1_048_576 - 300, 1_048_576 - 200, 1_048_576 - 150, 1_048_576-100]) {
  try {
    const r = await a.client.callTool({ name: 'searchKnowledge', arguments: { query: 'x'.repeat(n) } });
    console.log(n, JSON.stringify(outcomeOf(r as any)).slice(0, 300));
  } catch (e) { console.log(n, 'threw', (e as Error).message.slice(0, 200)); }
}
const t0 = performance.now();
for (let i = 0; i < 200; i++) await a.client.callTool({ name: 'agent_profile', arguments: { username: 'scratch_a' } });
console.log('200 calls ms', performance.now() - t0);
await l.close();
process.exit(0);
