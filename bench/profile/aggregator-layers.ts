/**
 * The all-in-one's own layers, each timed alone in process (CPU per call, interleaved rounds):
 * a server instance for one exchange (the endpoint builds one per request) for the aggregator
 * and for the users service, and one `agent_profile` call through the aggregator's backend
 * (route, span, forward, retries, in-process call) against the same call on the service's
 * backend directly.
 *
 *   npx tsx --conditions=development bench/profile/aggregator-layers.ts [calls per round] [rounds]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from '@lore/aggregator';
import { type CallInfo, createMcpFactory } from '@lore/kit';
import { benchConfig, registerAgent } from '../services.js';

const calls = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'lore-layers-'));
const aio = await startAllInOne(benchConfig(join(dir, 'aio')));
const key = (await registerAgent({ fetch: (r: Request) => aio.app.fetch(r) }, 'layers_reader')).key;
const users = aio.services.find((s) => s.name === 'users')!;
const info = (): CallInfo => ({
  token: key,
  era: 'modern',
  requestId: 'layers',
  signal: new AbortController().signal,
  sampling: undefined,
  progress: async () => {},
});
const args = { username: 'layers_reader' };
const check = (r: unknown) => {
  if ((r as { isError?: boolean }).isError) throw new Error(JSON.stringify(r));
};
const aggFactory = createMcpFactory(aio.aggregator);
const usersFactory = createMcpFactory(users.backend);
const paths: Record<string, () => Promise<void> | void> = {
  'server instance, aggregator': () => void aggFactory({ era: 'modern' }),
  'server instance, users': () => void usersFactory({ era: 'modern' }),
  'call via aggregator backend': async () =>
    check(await aio.aggregator.callTool('agent_profile', args, info())),
  'call on users backend': async () => check(await users.backend.callTool('agent_profile', args, info())),
};
async function cpuPerCall(fn: () => Promise<void> | void, n: number): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
// LAYERS=<substring> keeps only the matching paths (to profile one with --cpu-prof).
const only = process.env.LAYERS;
if (only) for (const k of Object.keys(paths)) if (!k.includes(only)) delete paths[k];
for (const fn of Object.values(paths)) await cpuPerCall(fn, 500);
const out = new Map<string, number[]>(Object.keys(paths).map((k) => [k, []]));
for (let r = 0; r < rounds; r++)
  for (const [name, fn] of Object.entries(paths)) out.get(name)!.push(await cpuPerCall(fn, calls));
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of out)
  console.log(`${name}: median ${med(xs).toFixed(1)} µs (${xs.map((x) => x.toFixed(0)).join(', ')})`);
// What the aggregator adds, per round (the two calls measured back to back).
const via = out.get('call via aggregator backend');
const on = out.get('call on users backend');
if (via?.length && on?.length) {
  const added = via.map((v, i) => v - on[i]!);
  console.log(
    `added by the aggregator: median ${med(added).toFixed(1)} µs (${added.map((x) => x.toFixed(0)).join(', ')})`,
  );
}
await aio.close();
rmSync(dir, { recursive: true, force: true });
