/**
 * What the all-in-one adds to one read-only call, in process (no sockets): the users service's
 * `agent_profile` through `service.fetch` and the same call through the all-in-one's app, in
 * interleaved rounds, CPU per call of each; with BENCH_CPU_PROF=<dir> a profile of each path.
 *
 *   npx tsx --conditions=development bench/profile/aio-vs-direct.ts [calls per round] [rounds]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from '@lore/aggregator';
import { createUsersService } from '@lore/users';
import { MCP_HEADERS, toolsCallBody } from '../lib.js';
import { benchConfig, benchDeps, registerAgent } from '../services.js';
import { startCpuProfile } from './cpu.js';
import { groupProfile } from './groups.js';

const calls = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'lore-aio-direct-'));
const users = await createUsersService(benchDeps(dir));
await users.start();
const key = (await registerAgent(users, 'proto_reader')).key;
const aio = await startAllInOne(benchConfig(join(dir, 'aio')));
const aioKey = (await registerAgent({ fetch: (r: Request) => aio.app.fetch(r) }, 'proto_reader')).key;
const body = toolsCallBody('agent_profile', { username: 'proto_reader' });
const headers = { ...MCP_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'agent_profile' };
const caller = (fetch: (r: Request) => Promise<Response> | Response, k: string) => async () => {
  const res = await fetch(
    new Request('http://lore/mcp', {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${k}` },
      body,
    }),
  );
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${res.status} ${text}`);
};
const paths = {
  direct: caller((r) => users.fetch(r), key),
  aio: caller((r) => aio.app.fetch(r), aioKey),
};
async function cpuPerCall(fn: () => Promise<void>, n: number): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
for (const fn of Object.values(paths)) await cpuPerCall(fn, 500);
const out: Record<string, number[]> = { direct: [], aio: [] };
for (let r = 0; r < rounds; r++)
  for (const [name, fn] of Object.entries(paths)) out[name]!.push(await cpuPerCall(fn, calls));
const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
console.log(
  `CPU per call (µs), ${rounds} rounds of ${calls}: direct ${f(out.direct!)}; all-in-one ${f(out.aio!)}`,
);
console.log(`all-in-one − direct: ${f(out.aio!.map((a, i) => a - out.direct![i]!))} µs`);
if (process.env.BENCH_CPU_PROF)
  for (const [name, fn] of Object.entries(paths)) {
    const stop = await startCpuProfile();
    await cpuPerCall(fn, calls);
    const file = await stop(process.env.BENCH_CPU_PROF, `inproc-${name}`);
    const { total, byGroup } = groupProfile(file);
    const per = (us: number) => (us / calls).toFixed(0);
    console.log(
      `${name} (${file}): ${per(total)} µs sampled; ` +
        Object.entries(byGroup)
          .filter(([, v]) => v > 0)
          .map(([g, v]) => `${g} ${per(v)}`)
          .join(', '),
    );
  }
await users.stop();
await aio.close();
rmSync(dir, { recursive: true, force: true });
