/**
 * The distributed path's latency tail alone: the users service and an aggregator in distributed
 * mode in front of it (both from the TypeScript sources, as `pnpm bench protocol` starts them),
 * `agent_profile` under autocannon, the service direct and the relayed path interleaved round by
 * round; p50, p99 and p99/p50 of each round, and the time the aggregator spent in GC (from
 * `--trace-gc`-free figures: its CPU per call).
 *
 *   npx tsx --conditions=development bench/profile/relay-tail.ts [rounds=4] [seconds=8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, median, type Rung } from '../ladder.js';
import { MCP_HEADERS, ROOT, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol.js';

const rounds = Number(process.argv[2] ?? 4);
const seconds = Number(process.argv[3] ?? 8);
const dir = mkdtempSync(join(tmpdir(), 'lore-relay-tail-'));
const env = {
  LORE_RATE_LIMITS: 'false',
  LORE_LOG_LEVEL: 'info',
  NATS_URL: '',
  LORE_INGEST_OWN_DOCS: 'false',
};
const users = await start(
  join(ROOT, 'packages/users/src/main.ts'),
  [],
  { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'users') },
  /"url":"(http[^"]+)"/,
);
const dist = await start(
  join(ROOT, 'apps/aggregator/src/main.ts'),
  ['start'],
  { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'dist'), LORE_SERVICES: `users=${users.url}` },
  /Lore is running at (\S+)/,
);
try {
  const key = await registerAgent(users.url, 'bench_reader');
  const headers = {
    ...MCP_HEADERS,
    'mcp-method': 'tools/call',
    'mcp-name': 'agent_profile',
    authorization: `Bearer ${key}`,
  };
  const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
  const rungs: Rung[] = [
    { key: 'direct', name: 'direct', url: users.url, headers, body, pids: [users.pid] },
    { key: 'dist', name: 'distributed', url: dist.url, headers, body, pids: [dist.pid, users.pid] },
  ];
  for (const r of rungs) await measure(r, 10, 2);
  const ratios: Record<string, number[]> = { direct: [], dist: [] };
  for (let i = 0; i < rounds; i++)
    for (const r of rungs) {
      const m = await measure(r, 50, seconds);
      ratios[r.key]!.push(m.p99 / m.p50);
      console.log(
        `round ${i + 1} ${r.name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ` +
          `p99/p50 ${(m.p99 / m.p50).toFixed(2)}, CPU ${m.cpuPerCall.toFixed(2)} ms/call`,
      );
    }
  console.log(
    `p99/p50 median: direct ${median(ratios.direct!).toFixed(2)}, distributed ${median(ratios.dist!).toFixed(2)}`,
  );
} finally {
  await dist.stop();
  await users.stop();
  rmSync(dir, { recursive: true, force: true });
}
