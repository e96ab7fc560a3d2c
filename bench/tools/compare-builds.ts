/**
 * Two builds of one Lore server side by side (A and B: the compiled JavaScript at two checkouts),
 * `agent_profile` under autocannon, interleaved round by round: req/s and CPU per call of each,
 * and B/A per round.
 *
 *   npx tsx --conditions=development bench/tools/compare-builds.ts <rootA> <rootB> [rounds=4] [seconds=6] [entry=packages/users/dist/bundle/main.js]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, median, type Rung } from '../ladder.js';
import { LADDER_ENV, MCP_HEADERS, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol-rungs.js';

const [rootA, rootB] = [process.argv[2]!, process.argv[3]!];
const rounds = Number(process.argv[4] ?? 4);
const seconds = Number(process.argv[5] ?? 6);
const entry = process.argv[6] ?? 'packages/users/dist/bundle/main.js';
// AB_ENTRY_B: another server for B (the all-in-one against the users service, in one checkout).
const entries = [entry, process.env.AB_ENTRY_B ?? entry];
const dir = mkdtempSync(join(tmpdir(), 'lore-ab-'));
const env = LADDER_ENV;
// AB_DISTRIBUTED_B=1: B is the aggregator in distributed mode in front of a users service of its own.
const upstreamB = process.env.AB_DISTRIBUTED_B
  ? await start(
      join(rootB, 'packages/users/dist/bundle/main.js'),
      [],
      { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'upstream') },
      /"url":"(http[^"]+)"/,
      60_000,
      [],
      'built',
    )
  : undefined;
const procs = await Promise.all(
  [rootA, rootB].map((root, i) => {
    const aio = entries[i]!.includes('aggregator');
    return start(
      join(root, entries[i]!),
      aio ? ['start'] : [],
      {
        ...env,
        ...(i
          ? Object.fromEntries(
              (process.env.AB_ENV_B ?? '')
                .split(',')
                .filter(Boolean)
                .map((kv) => kv.split('=')),
            )
          : {}),
        ...(i && upstreamB ? { LORE_SERVICES: `users=${upstreamB.url}` } : {}),
        LORE_PORT: '0',
        LORE_DATA_DIR: join(dir, String(i)),
      },
      aio ? /Lore is running at (\S+)/ : /"url":"(http[^"]+)"/,
      60_000,
      [],
      'built',
    );
  }),
);
try {
  const rungs: Rung[] = [];
  for (const [i, p] of procs.entries()) {
    const key = await registerAgent(p.url, 'bench_reader');
    rungs.push({
      key: i ? 'B' : 'A',
      name: i ? rootB : rootA,
      url: p.url,
      headers: {
        ...MCP_HEADERS,
        'mcp-method': 'tools/call',
        'mcp-name': 'agent_profile',
        authorization: `Bearer ${key}`,
      },
      body: toolsCallBody('agent_profile', { username: 'bench_reader' }),
      pids: i && upstreamB ? [p.pid, upstreamB.pid] : [p.pid],
    });
  }
  for (const r of rungs) await measure(r, 10, 1);
  const res: Record<string, { rps: number; cpu: number }[]> = { A: [], B: [] };
  for (let i = 0; i < rounds; i++)
    for (const r of i % 2 ? [...rungs].reverse() : rungs) {
      const m = await measure(r, 50, seconds);
      res[r.key]!.push({ rps: m.rps, cpu: m.cpuPerCall });
      if (m.non2xx || m.errors) console.log(`${r.key}: non2xx ${m.non2xx} errors ${m.errors}`);
    }
  for (const k of ['A', 'B'])
    console.log(k, res[k]!.map((x) => `${x.rps.toFixed(0)} req/s ${x.cpu.toFixed(3)} ms`).join(' | '));
  const ratios = res.B!.map((b, i) => b.rps / res.A![i]!.rps);
  console.log(
    'B/A req/s per round',
    ratios.map((x) => x.toFixed(2)).join(' '),
    'median',
    median(ratios).toFixed(2),
  );
  const cpu = res.B!.map((b, i) => b.cpu / res.A![i]!.cpu);
  console.log(
    'B/A CPU per call per round',
    cpu.map((x) => x.toFixed(2)).join(' '),
    'median',
    median(cpu).toFixed(2),
  );
} finally {
  for (const p of procs) p.child.kill();
  upstreamB?.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
