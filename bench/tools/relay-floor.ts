/**
 * How much of the distributed ratios a relay can reach at all on this machine: the users service
 * direct, Lore's aggregator in distributed mode in front of it, and a relay that does nothing but
 * pass bytes (`bench/targets/bare-relay.ts`) in front of the same service, interleaved round by
 * round under the ladder's load (autocannon, 50 connections, `agent_profile`). Prints each
 * path's throughput, p50, p99 and CPU per call (both processes for a relay), and the ratios the
 * fast path's targets take against the service direct.
 *
 *   npx tsx --conditions=development bench/tools/relay-floor.ts [rounds=3] [seconds=8]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, LADDER_ENV, load, MCP_HEADERS, type Proc, ROOT, start, toolsCallBody } from '../lib.js';
import { registerAgent } from '../suites/protocol-rungs.js';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 8);
// The bundled bins, built first when stale (as the ladder does).
if (
  spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], { cwd: ROOT, stdio: 'inherit' }).status !== 0
)
  throw new Error('the compiled JavaScript could not be built');
const dir = mkdtempSync(join(tmpdir(), 'lore-relay-floor-'));
const env = LADDER_ENV;
const procs: Proc[] = [];
try {
  const users = await start(
    join(ROOT, 'packages/users/dist/bundle/main.js'),
    [],
    { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'users') },
    /"url":"(http[^"]+)"/,
    60_000,
    [],
    'built',
  );
  procs.push(users);
  const lore = await start(
    join(ROOT, 'apps/aggregator/dist/bundle/main.js'),
    ['start'],
    { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(dir, 'dist'), LORE_SERVICES: `users=${users.url}` },
    /Lore is running at (\S+)/,
    60_000,
    [],
    'built',
  );
  procs.push(lore);
  const bare = await start(join(ROOT, 'bench/targets/bare-relay.ts'), [users.url], {}, /listening (\S+)/);
  procs.push(bare);
  const key = await registerAgent(users.url, 'bench_reader');
  const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
  const headers = {
    ...MCP_HEADERS,
    'mcp-method': 'tools/call',
    'mcp-name': 'agent_profile',
    authorization: `Bearer ${key}`,
  };
  const paths = [
    { name: 'direct', url: users.url, pids: [users.pid] },
    { name: 'Lore relay', url: lore.url, pids: [lore.pid, users.pid] },
    { name: 'bare relay', url: bare.url, pids: [bare.pid, users.pid] },
  ];
  for (const p of paths) await load(p.url, { connections: 50, seconds: 2, body, headers });
  const results: Record<
    string,
    Array<{ rps: number; p50: number; p99: number; cpu: number }>
  > = Object.fromEntries(paths.map((p) => [p.name, []]));
  for (let r = 0; r < rounds; r++)
    for (const p of paths) {
      const c0 = p.pids.map(cpuMs);
      const res = await load(p.url, { connections: 50, seconds, body, headers });
      const cpu = p.pids.map((pid, i) => cpuMs(pid) - c0[i]!).reduce((a, b) => a + b, 0) / res.total;
      if (res.errors || res.non2xx) throw new Error(`${p.name}: ${res.errors} errors, ${res.non2xx} non-2xx`);
      results[p.name]!.push({ rps: res.rps, p50: res.p50, p99: res.p99, cpu });
      process.stderr.write(
        `round ${r + 1} ${p.name}: ${res.rps.toFixed(0)} req/s, p50 ${res.p50} ms, p99 ${res.p99} ms, ${cpu.toFixed(3)} ms CPU a call\n`,
      );
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const relay of ['Lore relay', 'bare relay']) {
    const per = results[relay]!.map((x, i) => {
      const d = results.direct![i]!;
      return { thr: x.rps / d.rps, p50: x.p50 / d.p50, tail: x.p99 / x.p50 };
    });
    const f = (xs: number[]) => `${median(xs).toFixed(2)} (${xs.map((x) => x.toFixed(2)).join(', ')})`;
    process.stdout.write(
      `${relay}: throughput / direct ${f(per.map((x) => x.thr))}; p50 / direct ${f(per.map((x) => x.p50))}; p99 / its p50 ${f(per.map((x) => x.tail))}; CPU a call (both processes) ${f(results[relay]!.map((x) => x.cpu))} against direct ${f(results.direct!.map((x) => x.cpu))}\n`,
    );
  }
} finally {
  for (const p of procs) p.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
