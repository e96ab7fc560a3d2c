/**
 * The aggregator's own cost per call, two builds side by side (A and B: two copies of its bundle
 * in one checkout, e.g. the baseline copied to apps/aggregator/dist/base before a change), both
 * modes: one users service (the checkout's bundle), each aggregator build in distributed mode in
 * front of it, and each as an all-in-one; `agent_profile` under autocannon, every rung once per
 * round, rounds interleaved. Per rung: req/s, p50, p99, and CPU per call of each process apart
 * (from /proc), so the relay's own cost is read without the service's.
 *
 *   npx tsx --conditions=development bench/profile/aggr-ab.ts <entryA> <entryB> [rounds=4] [seconds=5] [connections=50]
 *
 * AGGR_AB_ONLY=dist|aio measures one mode only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../ladder.js';
import { cpuMs, LADDER_ENV, load, MCP_HEADERS, ROOT, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol.js';

const [entryA, entryB] = [process.argv[2]!, process.argv[3]!];
const rounds = Number(process.argv[4] ?? 4);
const seconds = Number(process.argv[5] ?? 5);
const connections = Number(process.argv[6] ?? 50);
const only = process.env.AGGR_AB_ONLY;
const dir = mkdtempSync(join(tmpdir(), 'lore-aggr-ab-'));
const env = LADDER_ENV;
const SERVICE = /"url":"(http[^"]+)"/;
const AGG = /Lore is running at (\S+)/;
const users = await start(
  join(ROOT, 'packages/users/dist/bundle/main.js'),
  [],
  { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'users') },
  SERVICE,
  60_000,
  [],
  'built',
);
// AGGR_AB_NODE_ARGS_B: node flags for B's processes only (an experiment's --import).
const nodeArgsB = (process.env.AGGR_AB_NODE_ARGS_B ?? '').split(' ').filter(Boolean);
const agg = (entry: string, name: string, distributed: boolean) =>
  start(
    join(ROOT, entry),
    ['start'],
    {
      ...env,
      LORE_PORT: '0',
      LORE_DATA_DIR: join(dir, name),
      ...(distributed ? { LORE_SERVICES: `users=${users.url}` } : {}),
    },
    AGG,
    60_000,
    name.endsWith('B') ? nodeArgsB : [],
    'built',
  );
const procs = {
  distA: only === 'aio' ? undefined : await agg(entryA, 'distA', true),
  distB: only === 'aio' ? undefined : await agg(entryB, 'distB', true),
  aioA: only === 'dist' ? undefined : await agg(entryA, 'aioA', false),
  aioB: only === 'dist' ? undefined : await agg(entryB, 'aioB', false),
};
interface Rung {
  key: string;
  url: string;
  headers: Record<string, string>;
  pids: number[];
}
const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
const headersFor = (key: string) => ({
  ...MCP_HEADERS,
  'mcp-method': 'tools/call',
  'mcp-name': 'agent_profile',
  authorization: `Bearer ${key}`,
});
try {
  const usersKey = await registerAgent(users.url, 'bench_reader');
  const rungs: Rung[] = [{ key: 'direct', url: users.url, headers: headersFor(usersKey), pids: [users.pid] }];
  for (const [key, p] of Object.entries(procs)) {
    if (!p) continue;
    const dist = key.startsWith('dist');
    const k = dist ? usersKey : await registerAgent(p.url, 'bench_reader');
    rungs.push({ key, url: p.url, headers: headersFor(k), pids: dist ? [p.pid, users.pid] : [p.pid] });
  }
  for (const r of rungs) {
    const w = await load(r.url, { connections: 10, seconds: 2, body, headers: r.headers });
    if (w.errors || w.non2xx || !w.total) throw new Error(`${r.key} does not answer`);
  }
  const out = new Map<string, { rps: number[]; p50: number[]; p99: number[]; cpu: number[][] }>();
  for (const r of rungs) out.set(r.key, { rps: [], p50: [], p99: [], cpu: r.pids.map(() => []) });
  for (let i = 0; i < rounds; i++) {
    for (const r of rungs) {
      const before = r.pids.map(cpuMs);
      const m = await load(r.url, { connections, seconds, body, headers: r.headers });
      const cpu = r.pids.map((pid, j) => (cpuMs(pid) - before[j]!) / m.total);
      const o = out.get(r.key)!;
      o.rps.push(m.rps);
      o.p50.push(m.p50);
      o.p99.push(m.p99);
      for (const [j, c] of cpu.entries()) o.cpu[j]!.push(c);
      console.log(
        `round ${i + 1} ${r.key}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} p99 ${m.p99} ms, CPU/call ${cpu.map((c) => c.toFixed(3)).join(' + ')} ms${m.errors || m.non2xx ? ` (${m.errors} errors, ${m.non2xx} non-2xx)` : ''}`,
      );
    }
  }
  const f = (xs: number[], d = 3) => `${median(xs).toFixed(d)} (${xs.map((x) => x.toFixed(d)).join(', ')})`;
  console.log('\nmedians (rounds):');
  for (const [key, o] of out) {
    console.log(
      `${key}: ${f(o.rps, 0)} req/s; p50 ${f(o.p50, 1)}; p99 ${f(o.p99, 1)}; CPU/call ${o.cpu.map((c) => f(c)).join(' + ')}`,
    );
  }
  const ratio = (a: string, b: string, g: (o: { rps: number[] }, i: number) => number) => {
    const oa = out.get(a);
    const ob = out.get(b);
    if (!oa || !ob) return;
    const xs = Array.from({ length: rounds }, (_, i) => g(oa, i) / g(ob, i));
    console.log(`${a} / ${b}: ${f(xs)}`);
  };
  for (const k of ['aioA', 'aioB', 'distA', 'distB']) ratio(k, 'direct', (o, i) => o.rps[i]!);
  for (const k of ['distA', 'distB']) {
    const o = out.get(k);
    if (!o) continue;
    const p = o as { p50: number[]; p99: number[] };
    const d = out.get('direct')!;
    console.log(
      `${k}: p50/direct p50 ${f(
        p.p50.map((x, i) => x / d.p50[i]!),
        2,
      )}; p99/p50 ${f(
        p.p99.map((x, i) => x / p.p50[i]!),
        2,
      )}`,
    );
  }
} finally {
  for (const p of Object.values(procs)) await p?.stop();
  await users.stop();
  rmSync(dir, { recursive: true, force: true });
}
