/**
 * Per-request cost of one read-only tool call, in process (no HTTP, no second process):
 * the users service's `agent_profile` through `service.fetch`, sequentially and 10 in flight,
 * and `tools/list` for comparison.
 *
 *   npx tsx --conditions=development bench/tools/call-cpu.ts [calls]
 *   BENCH_CPU_PROF=/tmp/p npx tsx --conditions=development bench/tools/call-cpu.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAllInOne } from '@lore/aggregator';
import { createUsersService } from '@lore/users';
import { MCP_HEADERS, percentile, toolsCallBody } from '../lib.js';
import { benchConfig, benchDeps, registerAgent } from '../services.js';
import { startCpuProfile } from './cpu-profile.js';

const calls = Number(process.argv[2] ?? 3000);
const dir = mkdtempSync(join(tmpdir(), 'lore-proto-'));
const users = await createUsersService(benchDeps(dir));
await users.start();
const agent = await registerAgent(users, 'proto_reader');
const body = toolsCallBody('agent_profile', { username: 'proto_reader' });
const headers = {
  ...MCP_HEADERS,
  'mcp-method': 'tools/call',
  'mcp-name': 'agent_profile',
  authorization: `Bearer ${agent.key}`,
};
const one = async () => {
  const res = await users.fetch(new Request('http://lore/mcp', { method: 'POST', headers, body }));
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${res.status} ${text}`);
};
// The same call through the all-in-one aggregator (every service in this process).
const aio = await startAllInOne(benchConfig(join(dir, 'aio')));
const aioKey = (await registerAgent({ fetch: (r: Request) => aio.app.fetch(r) }, 'proto_reader')).key;
const viaAggregator = async () => {
  const res = await aio.app.fetch(
    new Request('http://lore/mcp', {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${aioKey}` },
      body,
    }),
  );
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${res.status} ${text}`);
};
const listBody = JSON.stringify({
  ...JSON.parse(body),
  method: 'tools/list',
  params: { _meta: JSON.parse(body).params._meta },
});
const list = async () => {
  const res = await users.fetch(
    new Request('http://lore/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-method': 'tools/list' },
      body: listBody,
    }),
  );
  await res.text();
};

async function sequential(fn: () => Promise<void>, n: number) {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { p50: percentile(t, 50), p99: percentile(t, 99), mean: t.reduce((a, b) => a + b, 0) / n };
}
async function parallel(fn: () => Promise<void>, n: number, width: number) {
  const t0 = performance.now();
  let left = n;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (left-- > 0) await fn();
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

const direct = async () => {
  const r = (await users.backend.callTool(
    'agent_profile',
    { username: 'proto_reader' },
    {
      token: agent.key,
      era: 'modern',
      requestId: 'probe',
      signal: new AbortController().signal,
      sampling: undefined,
      progress: async () => {},
    },
  )) as { isError?: boolean };
  if (r.isError) throw new Error(JSON.stringify(r));
};
for (let i = 0; i < 300; i++) await one();
for (let i = 0; i < 300; i++) await direct();
for (let i = 0; i < 300; i++) await viaAggregator();
const c0 = process.cpuUsage();
const dseq = await sequential(direct, calls);
const dcpu = process.cpuUsage(c0);
const a0 = process.cpuUsage();
const aseq = await sequential(viaAggregator, calls);
const acpu = process.cpuUsage(a0);
const stop = process.env.BENCH_CPU_PROF ? await startCpuProfile() : undefined;
const cpu0 = process.cpuUsage();
const seq = await sequential(one, calls);
const cpu = process.cpuUsage(cpu0);
const par = await parallel(one, calls, 10);
if (stop) process.stderr.write(`profile: ${await stop(process.env.BENCH_CPU_PROF!, 'protocol-inprocess')}\n`);
const ls = await sequential(list, 500);
const f = (x: number) => x.toFixed(3);
console.log(
  `agent_profile in process: p50 ${f(seq.p50)} ms, p99 ${f(seq.p99)} ms, mean ${f(seq.mean)} ms, ` +
    `CPU ${f((cpu.user + cpu.system) / 1000 / calls)} ms/call; 10 in flight ${par.toFixed(0)} req/s`,
);
console.log(
  `agent_profile backend only (no HTTP, no MCP): p50 ${f(dseq.p50)} ms, mean ${f(dseq.mean)} ms, CPU ${f((dcpu.user + dcpu.system) / 1000 / calls)} ms/call`,
);
console.log(
  `agent_profile through the all-in-one aggregator: p50 ${f(aseq.p50)} ms, mean ${f(aseq.mean)} ms, CPU ${f((acpu.user + acpu.system) / 1000 / calls)} ms/call`,
);
console.log(`tools/list in process: p50 ${f(ls.p50)} ms, mean ${f(ls.mean)} ms`);
await users.stop();
await aio.close();
rmSync(dir, { recursive: true, force: true });
