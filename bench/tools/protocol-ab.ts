/**
 * Two builds of Lore side by side on the protocol ladder's Lore rungs (users service direct,
 * all-in-one, distributed → users), in one run: this checkout against another (`BENCH_BASE_ROOT`,
 * e.g. a git worktree of an earlier commit, built with `node scripts/built.mjs`), the rungs
 * interleaved round by round so that a busy machine weighs on both alike, and each ratio (this
 * build / the other) taken per round. BENCH_ROUNDS (4), BENCH_SECONDS (5), BENCH_CONNECTIONS (50).
 *
 *   BENCH_BASE_ROOT=/path/to/other/checkout pnpm tsx bench/tools/protocol-ab.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, type Rung, runLadder } from '../ladder.js';
import { LADDER_ENV, MCP_HEADERS, type Proc, ROOT, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol-rungs.js';

const base = process.env.BENCH_BASE_ROOT;
if (!base) throw new Error('BENCH_BASE_ROOT: the other checkout to compare with');
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const data = mkdtempSync(join(tmpdir(), 'lore-ab-'));
const procs: Proc[] = [];

for (const root of [ROOT, base]) {
  const built = spawnSync(process.execPath, [join(root, 'scripts/built.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`${root}: the compiled JavaScript could not be built`);
}

async function lore(root: string, tag: string): Promise<Rung[]> {
  const users = join(root, 'packages/users/dist/bundle/main.js');
  const agg = join(root, 'apps/aggregator/dist/bundle/main.js');
  const env = { ...LADDER_ENV, LORE_PORT: '0' };
  const run = async (entry: string, args: string[], extra: Record<string, string>, ready: RegExp) => {
    const p = await start(entry, args, { ...env, ...extra }, ready, 60_000, [], 'built');
    procs.push(p);
    return p;
  };
  const direct = await run(users, [], { LORE_DATA_DIR: join(data, `${tag}-users`) }, /"url":"(http[^"]+)"/);
  const aio = await run(
    agg,
    ['start'],
    { LORE_DATA_DIR: join(data, `${tag}-aio`) },
    /Lore is running at (\S+)/,
  );
  const dist = await run(
    agg,
    ['start'],
    { LORE_DATA_DIR: join(data, `${tag}-dist`), LORE_SERVICES: `users=${direct.url}` },
    /Lore is running at (\S+)/,
  );
  const keyDirect = await registerAgent(direct.url, 'bench_reader');
  const keyAio = await registerAgent(aio.url, 'bench_reader');
  const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
  const headers = (key: string) => ({
    ...MCP_HEADERS,
    'mcp-method': 'tools/call',
    'mcp-name': 'agent_profile',
    authorization: `Bearer ${key}`,
  });
  return [
    {
      key: `${tag}:direct`,
      name: 'users direct',
      url: direct.url,
      headers: headers(keyDirect),
      body,
      pids: [direct.pid],
    },
    { key: `${tag}:aio`, name: 'all-in-one', url: aio.url, headers: headers(keyAio), body, pids: [aio.pid] },
    {
      key: `${tag}:dist`,
      name: 'distributed → users',
      url: dist.url,
      headers: headers(keyDirect),
      body,
      pids: [dist.pid, direct.pid],
    },
  ];
}

try {
  const mine = await lore(ROOT, 'new');
  const theirs = await lore(base, 'old');
  // Alternate the two builds rung by rung: new direct, old direct, new all-in-one, old all-in-one…
  const rungs = mine.flatMap((r, i) => [r, theirs[i]!]);
  await runLadder(rungs, { rounds: 1, connections: 10, seconds: 1 });
  const results = await runLadder(rungs, { rounds, connections, seconds });
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  console.log(
    `\n${rounds} rounds of ${seconds} s, ${connections} connections; new = ${ROOT}, old = ${base}\n`,
  );
  console.log(
    '| rung | throughput new / old | p50 old / new | CPU a call new / old | new req/s, p50, CPU ms | old req/s, p50, CPU ms |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of mine) {
    const key = r.key.slice(4);
    const n = results.get(`new:${key}`)!;
    const o = results.get(`old:${key}`)!;
    const tp = n.map((x, i) => x.rps / o[i]!.rps);
    const p50 = n.map((x, i) => o[i]!.p50 / x.p50);
    const cpu = n.map((x, i) => x.cpuPerCall / o[i]!.cpuPerCall);
    const m = (xs: { rps: number; p50: number; cpuPerCall: number }[]) =>
      `${Math.round(median(xs.map((x) => x.rps)))}, ${median(xs.map((x) => x.p50))} ms, ${median(xs.map((x) => x.cpuPerCall)).toFixed(2)}`;
    console.log(
      `| ${r.name} | **${median(tp).toFixed(2)}** (${fmt(tp)}) | ${median(p50).toFixed(2)} (${fmt(p50)}) | ${median(cpu).toFixed(2)} (${fmt(cpu)}) | ${m(n)} | ${m(o)} |`,
    );
  }
} finally {
  await Promise.all(procs.map((p) => p.stop()));
  rmSync(data, { recursive: true, force: true });
}
