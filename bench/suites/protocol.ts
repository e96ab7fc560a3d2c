import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { median, perRound, type Rung, type RungResult, runLadder, TARGETS } from '../ladder.js';
import {
  LADDER_ENV,
  load,
  MCP_HEADERS,
  type Proc,
  ROOT,
  type Row,
  row,
  rssMiB,
  start,
  timeIt,
  toolsCallBody,
} from '../lib.js';
import { breakdown, freePort, registerAgent, v1Session } from './protocol-rungs.js';

// Lore's rungs run the bundled JavaScript, as `pnpm start`, `pnpm lore` and the image do (built
// and bundled first when stale); every rung, baselines included, runs with the same node flags.
const users = join(ROOT, 'packages/users/dist/bundle/main.js');
const lore = join(ROOT, 'apps/aggregator/dist/bundle/main.js');
// The CPU breakdown profiles the same servers from their TypeScript sources: the compiled bundles
// put the kit's modules into one file, which a profile cannot tell apart (auth, rate limits, db…).
const usersSource = join(ROOT, 'packages/users/src/main.ts');
const loreSource = join(ROOT, 'apps/aggregator/src/main.ts');
const HOOK = ['--import', join(ROOT, 'bench/targets/profile-hook.ts')];

/**
 * The SDK v1 reference server: `@modelcontextprotocol/server-everything` in its Streamable HTTP
 * mode (`dist/index.js streamableHttp`, Express, a session per client, an in-memory event store,
 * answers as SSE), as published. It listens on `PORT` and prints that number, not the one the
 * system picks, so the bench chooses a free port first.
 */
const everything = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/**
 * The protocol ladder (see bench/ladder.ts): bare Hono echo, a minimal server on the MCP SDK v2,
 * the SDK v1 reference server (server-everything, its `echo` tool) and a minimal SDK v1
 * equivalent, the users service direct, the all-in-one aggregator and the aggregator in
 * distributed mode in front of that service; then where a call's CPU goes in the
 * users service and the all-in-one (BENCH_PROTOCOL_PROFILE=0 skips that). BENCH_ROUNDS (3) and
 * BENCH_CONNECTIONS (50) tune it.
 */
export async function protocolSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const env = LADDER_ENV;
  const procs: Proc[] = [];
  const rows: Row[] = [];
  const profDir = join(opts.dataDir, 'profiles');
  mkdirSync(profDir, { recursive: true });
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the compiled JavaScript could not be built');
  const t0 = performance.now();
  const started = async (p: Promise<Proc>) => {
    const proc = await p;
    procs.push(proc);
    return proc;
  };
  try {
    const echo = await started(start(join(ROOT, 'bench/targets/echo.ts'), [], {}, /listening (\S+)/));
    const minimal = await started(
      start(join(ROOT, 'bench/targets/sdk-minimal.ts'), [], {}, /listening (\S+)/),
    );
    const refPort = await freePort();
    const reference = await started(
      start(everything, ['streamableHttp'], { PORT: String(refPort) }, /listening on port (\d+)/),
    );
    const referenceUrl = `http://127.0.0.1:${reference.url}/mcp`;
    const v1min = await started(start(join(ROOT, 'bench/targets/sdk-v1.ts'), [], {}, /listening (\S+)/));
    const readyFrom = performance.now();
    const direct = await started(
      start(
        users,
        [],
        {
          ...env,
          LORE_PORT: '0',
          LORE_DATA_DIR: join(opts.dataDir, 'users'),
        },
        /"url":"(http[^"]+)"/,
        60_000,
        [],
        'built',
      ),
    );
    const directReady = performance.now() - readyFrom;
    const aioFrom = performance.now();
    const allInOne = await started(
      start(
        lore,
        ['start'],
        {
          ...env,
          LORE_PORT: '0',
          LORE_DATA_DIR: join(opts.dataDir, 'aio'),
        },
        /Lore is running at (\S+)/,
        60_000,
        [],
        'built',
      ),
    );
    const aioReady = performance.now() - aioFrom;
    const distributed = await started(
      start(
        lore,
        ['start'],
        {
          ...env,
          LORE_PORT: '0',
          LORE_DATA_DIR: join(opts.dataDir, 'dist'),
          LORE_SERVICES: `users=${direct.url}`,
        },
        /Lore is running at (\S+)/,
        60_000,
        [],
        'built',
      ),
    );
    rows.push(
      row({ suite: 'memory', name: 'ready, users service (compiled)', value: directReady, unit: 'ms' }),
      row({ suite: 'memory', name: 'ready, all-in-one (compiled)', value: aioReady, unit: 'ms' }),
      row({
        suite: 'memory',
        name: 'idle RSS, one service alone (users)',
        value: rssMiB(direct.pid),
        unit: 'MiB',
      }),
      row({
        suite: 'memory',
        name: 'idle RSS, all-in-one process',
        value: rssMiB(allInOne.pid),
        unit: 'MiB',
        baseline: { name: 'users alone', value: rssMiB(direct.pid) },
      }),
    );

    const keyDirect = await registerAgent(direct.url, 'bench_reader');
    const keyAio = await registerAgent(allInOne.url, 'bench_reader');
    const loreBody = toolsCallBody('agent_profile', { username: 'bench_reader' });
    const loreHeaders = (key: string) => ({
      ...MCP_HEADERS,
      'mcp-method': 'tools/call',
      'mcp-name': 'agent_profile',
      authorization: `Bearer ${key}`,
    });
    const rungs: Rung[] = [
      {
        key: 'echo',
        name: 'bare Hono echo',
        url: echo.url,
        headers: { 'content-type': 'application/json' },
        body: loreBody,
        pids: [echo.pid],
      },
      {
        key: 'minimal',
        name: 'minimal SDK v2 server',
        url: minimal.url,
        headers: { ...MCP_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'lookup' },
        body: toolsCallBody('lookup', { username: 'bench_reader' }),
        pids: [minimal.pid],
      },
      {
        key: 'v1',
        name: 'SDK v1 reference server (server-everything)',
        url: referenceUrl,
        headers: await v1Session(referenceUrl),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'bench_reader' } },
        }),
        pids: [reference.pid],
      },
      {
        key: 'v1min',
        name: 'SDK v1 minimal equivalent (one tool, JSON answers)',
        url: v1min.url,
        headers: await v1Session(v1min.url),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'lookup', arguments: { username: 'bench_reader' } },
        }),
        pids: [v1min.pid],
      },
      {
        key: 'direct',
        name: 'users service direct',
        url: direct.url,
        headers: loreHeaders(keyDirect),
        body: loreBody,
        pids: [direct.pid],
      },
      {
        key: 'aio',
        name: 'all-in-one aggregator',
        url: allInOne.url,
        headers: loreHeaders(keyAio),
        body: loreBody,
        pids: [allInOne.pid],
      },
      {
        key: 'dist',
        name: 'distributed aggregator → users',
        url: distributed.url,
        headers: loreHeaders(keyDirect),
        body: loreBody,
        pids: [distributed.pid, direct.pid],
      },
    ];
    const rung = (key: string) => rungs.find((r) => r.key === key)!;
    // Warm up every path (JIT, caches) and check it answers before measuring.
    for (const r of rungs) {
      const w = await load(r.url, { connections: 10, seconds: 1, body: r.body, headers: r.headers });
      if (w.errors || w.non2xx || !w.total)
        throw new Error(`${r.name} does not answer (${w.non2xx} non-2xx, ${w.errors} errors)`);
    }
    const results = await runLadder(rungs, { rounds, connections, seconds: opts.seconds });
    const of = (key: string, f: (r: RungResult) => number) => median(results.get(key)!.map(f));
    for (const r of rungs) {
      const res = results.get(r.key)!;
      const base =
        r.key === 'echo' ? undefined : { name: 'minimal SDK v2', value: of('minimal', (x) => x.rps) };
      rows.push(
        row({
          suite: 'protocol',
          name: `${r.name}: throughput`,
          value: of(r.key, (x) => x.rps),
          unit: 'req/s',
          ...(base && r.key !== 'minimal' ? { baseline: base } : {}),
        }),
        row({
          suite: 'protocol',
          name: `${r.name}: p50 / p99`,
          value: of(r.key, (x) => x.p50),
          unit: `ms / ${of(r.key, (x) => x.p99).toFixed(0)} ms`,
        }),
        row({
          suite: 'protocol',
          name: `${r.name}: CPU per call`,
          value: of(r.key, (x) => x.cpuPerCall),
          unit: 'ms',
        }),
      );
      const errors = res.reduce((n, x) => n + x.errors + x.non2xx, 0);
      if (errors)
        rows.push(row({ suite: 'protocol', name: `${r.name}: errors`, value: errors, unit: 'count' }));
    }
    for (const t of TARGETS) {
      const m = perRound(rounds, (i) => t.of((key) => results.get(key)![i]!));
      const met = t.min !== undefined ? m.value >= t.min : m.value <= t.max!;
      rows.push({
        suite: 'ratio',
        name: t.name,
        value: m.value,
        unit: `± ${m.band.toFixed(2)} (${m.values.map((v) => v.toFixed(2)).join(', ')})`,
        target: t.min !== undefined ? `≥ ${t.min}` : `≤ ${t.max}`,
        met,
      });
    }

    // tools/list, sequential: what the aggregator adds to a catalog read.
    const listBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: JSON.parse(loreBody).params._meta },
    });
    const list = (url: string) => () =>
      fetch(url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-method': 'tools/list' },
        body: listBody,
      }).then((r) => r.text());
    const dl = await timeIt(300, list(direct.url));
    const al = await timeIt(300, list(allInOne.url));
    rows.push(row({ suite: 'protocol', name: 'tools/list direct: p50', value: dl.p50, unit: 'ms' }));
    rows.push(
      row({
        suite: 'protocol',
        name: 'tools/list via aggregator: p50',
        value: al.p50,
        unit: 'ms',
        baseline: { name: 'direct', value: dl.p50 },
      }),
    );
    rows.push(
      row({ suite: 'memory', name: 'RSS after load, users service', value: rssMiB(direct.pid), unit: 'MiB' }),
    );
    rows.push(
      row({
        suite: 'memory',
        name: 'RSS after load, all-in-one process',
        value: rssMiB(allInOne.pid),
        unit: 'MiB',
      }),
    );

    if (process.env.BENCH_PROTOCOL_PROFILE !== '0') {
      const fromSource = async (entry: string, args: string[], name: string, ready: RegExp) => {
        const out = join(profDir, `${name}.cpuprofile`);
        const env2 = { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(opts.dataDir, `${name}-src`) };
        const proc = await started(
          start(entry, args, { ...env2, BENCH_PROFILE_OUT: out }, ready, 60_000, HOOK),
        );
        const key = await registerAgent(proc.url, 'bench_reader');
        const r: Rung = {
          ...rung(name === 'users' ? 'direct' : 'aio'),
          url: proc.url,
          headers: loreHeaders(key),
          pids: [proc.pid],
        };
        await load(r.url, { connections: 10, seconds: 1, body: r.body, headers: r.headers });
        return breakdown(proc, r, out, opts.seconds);
      };
      rows.push(...(await fromSource(usersSource, [], 'users', /"url":"(http[^"]+)"/)));
      rows.push(...(await fromSource(loreSource, ['start'], 'aio', /Lore is running at (\S+)/)));
    }
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
  process.stderr.write(`protocol: ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  return rows;
}
