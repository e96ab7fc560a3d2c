import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { load, MCP_HEADERS, ROOT, type Row, row, toolsCallBody } from '../lib.js';
import { registerAgent } from './protocol-rungs.js';

/**
 * What `pnpm start` costs in memory and time: the resident memory of every process it leaves
 * running (pnpm and the server it `exec`s), idle and after a minute of load; one service alone
 * (the users service's bundled bin, as the image runs it); and the time from the command to "Lore is running".
 * BENCH_MEMORY_LOAD_SECONDS (60) is the load window, BENCH_MEMORY_IDLE_SECONDS (45) how long the
 * processes settle before the idle reading: long enough for the background ingest of Lore's own
 * documentation to end and its parser thread to end after its idle time (`PARSER_IDLE_MS`, 30 s).
 */

/** pid and every descendant of it, from /proc. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

function rssKiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

/**
 * A process's resident memory split by kind (MiB, from /proc/<pid>/smaps_rollup): anonymous
 * pages (the V8 heap, malloc, thread stacks: this process's own) and file pages (Node's binary,
 * native modules, libc: shared with every process that maps the same files).
 */
export function rssKinds(pid: number): { anonymous: number; file: number } {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    return { anonymous: kib('Anonymous') / 1024, file: (kib('Rss') - kib('Anonymous')) / 1024 };
  } catch {
    return { anonymous: 0, file: 0 };
  }
}

/** Resident memory of a whole process tree (MiB) and what is in it. */
export function treeRss(root: number): { mib: number; processes: string[] } {
  const pids = tree(root);
  const kib = pids.reduce((a, p) => a + rssKiB(p), 0);
  return {
    mib: kib / 1024,
    processes: pids.map((p) => `${commandOf(p)} (${(rssKiB(p) / 1024).toFixed(0)} MiB)`),
  };
}

interface Started {
  child: ChildProcess;
  url: string;
  readyMs: number;
  /** What the process printed so far (its last 100 kB). */
  output(): string;
  stop(): Promise<void>;
}

async function launch(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${cmd} ${args.join(' ')} did not start:\n${out}`)), 120_000);
    const on = (d: Buffer) => {
      out = (out + d).slice(-100_000);
      const m = ready.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => reject(new Error(`${cmd} exited (${code}):\n${out}`)));
  });
  const readyMs = performance.now() - t0;
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    child,
    url,
    readyMs,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      // pnpm passes SIGTERM on to the server it started.
      for (const pid of tree(child.pid!).reverse()) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {}
      }
      await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

const settle = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

export async function memorySuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const loadSeconds = Number(process.env.BENCH_MEMORY_LOAD_SECONDS ?? 60);
  const idleSeconds = Number(process.env.BENCH_MEMORY_IDLE_SECONDS ?? 45);
  // The start script builds when its JavaScript is stale; build first so the timing is a start.
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the compiled JavaScript could not be built');
  // As a user starts it (Lore's own documentation ingested), but without rate limits: the load
  // is one agent's calls, far above its 100 reads a minute.
  const env = {
    LORE_PORT: '0',
    NATS_URL: '',
    LORE_LOG_LEVEL: 'warn',
    LORE_RATE_LIMITS: 'false',
  };
  const rows: Row[] = [];

  const users = await launch(
    process.execPath,
    // As the image runs a service (Dockerfile's CMD and its MALLOC_ARENA_MAX).
    ['--optimize-for-size', join(ROOT, 'packages/users/dist/bundle/main.js')],
    { ...env, MALLOC_ARENA_MAX: '2', LORE_LOG_LEVEL: 'info', LORE_DATA_DIR: join(opts.dataDir, 'users') },
    /"url":"(http[^"]+)"/,
  );
  try {
    await settle(idleSeconds);
    const alone = treeRss(users.child.pid!);
    const kinds = rssKinds(users.child.pid!);
    rows.push(
      row({
        suite: 'memory',
        name: 'ready, users service (node --optimize-for-size dist/bundle/main.js)',
        value: users.readyMs,
        unit: 'ms',
      }),
      row({
        suite: 'memory',
        name: 'idle RSS, one service alone (users, as the image runs it)',
        value: alone.mib,
        unit: 'MiB',
        target: '≤ 80 MB (76 MiB)',
        met: alone.mib <= 80e6 / 2 ** 20,
      }),
      row({
        suite: 'memory',
        name: 'of which anonymous (heap, malloc, stacks)',
        value: kinds.anonymous,
        unit: 'MiB',
      }),
      row({
        suite: 'memory',
        name: 'of which file pages (node binary, libSQL, libc)',
        value: kinds.file,
        unit: 'MiB',
      }),
    );
  } finally {
    await users.stop();
  }

  // The baseline, in the same run: what `pnpm start` ran before, the TypeScript sources through tsx.
  const tsx = await launch(
    process.execPath,
    [
      '--conditions=development',
      '--import',
      pathToFileURL(join(ROOT, 'node_modules/tsx/dist/esm/index.mjs')).href,
      join(ROOT, 'apps/aggregator/src/main.ts'),
      'start',
    ],
    { ...env, LORE_DATA_DIR: join(opts.dataDir, 'tsx') },
    /Lore is running at (\S+)/,
  );
  let before: { mib: number; readyMs: number };
  try {
    await settle(idleSeconds);
    before = { mib: treeRss(tsx.child.pid!).mib, readyMs: tsx.readyMs };
  } finally {
    await tsx.stop();
  }

  let idleMib = 0;
  // Idle without the embedding model: on a default start the seeded profiles and Lore's own
  // documentation are embedded in the background at once, loading it; the next launch measures that.
  const lore = await launch(
    'pnpm',
    ['--silent', 'start'],
    { ...env, LORE_EMBEDDINGS: 'off', LORE_DATA_DIR: join(opts.dataDir, 'aio') },
    /Lore is running at (\S+)/,
  );
  try {
    await settle(idleSeconds);
    const idle = treeRss(lore.child.pid!);
    idleMib = idle.mib;
    process.stderr.write(`pnpm start leaves: ${idle.processes.join(', ')}\n`);
    // The server is the node that pnpm's script exec'd (the tree is pnpm, then node).
    const server = tree(lore.child.pid!).find((pid) => /dist\/(bundle\/)?main\.js/.test(commandOf(pid)));
    const serverKinds = server ? rssKinds(server) : { anonymous: 0, file: 0 };
    rows.push(
      row({
        suite: 'memory',
        name: 'ready, pnpm start (all-in-one, compiled)',
        value: lore.readyMs,
        unit: 'ms',
        baseline: { name: 'the TypeScript through tsx', value: before.readyMs },
        target: '< 3 s',
        met: lore.readyMs < 3000,
      }),
      row({
        suite: 'memory',
        name: `idle RSS, everything pnpm start leaves running, model not loaded (${idle.processes.length} processes)`,
        value: idle.mib,
        unit: 'MiB',
        baseline: { name: 'the TypeScript through tsx', value: before.mib },
        target: '≤ 120 MB (114 MiB)',
        met: idle.mib <= 120e6 / 2 ** 20,
      }),
      row({
        suite: 'memory',
        name: 'of which the server: anonymous',
        value: serverKinds.anonymous,
        unit: 'MiB',
      }),
      row({ suite: 'memory', name: 'of which the server: file pages', value: serverKinds.file, unit: 'MiB' }),
    );
    const key = await registerAgent(lore.url, 'bench_memory');
    const r = await load(lore.url, {
      connections: 20,
      seconds: loadSeconds,
      body: toolsCallBody('agent_profile', { username: 'bench_memory' }),
      headers: {
        ...MCP_HEADERS,
        'mcp-method': 'tools/call',
        'mcp-name': 'agent_profile',
        authorization: `Bearer ${key}`,
      },
    });
    if (r.errors || r.non2xx) throw new Error(`load had ${r.errors} errors, ${r.non2xx} non-2xx`);
    const loaded = treeRss(lore.child.pid!);
    rows.push(
      row({
        suite: 'memory',
        name: `RSS after ${loadSeconds} s of load (${Math.round(r.rps)} calls/s), pnpm start's processes`,
        value: loaded.mib,
        unit: 'MiB',
        target: '≤ 250 MB (238 MiB)',
        met: loaded.mib <= 250e6 / 2 ** 20,
      }),
    );
  } finally {
    await lore.stop();
  }
  rows.push(await withModel(env, opts.dataDir, idleSeconds, idleMib));
  return rows;
}

/**
 * `pnpm start` as it starts by default (`LORE_EMBEDDINGS=local`), its processes' RSS read
 * `idleSeconds` after the embedding model said it loaded (its thread, the ONNX Runtime session),
 * against the same start without the model (`without`, MiB) of this run.
 */
async function withModel(
  env: Record<string, string>,
  dataDir: string,
  idleSeconds: number,
  without: number,
): Promise<Row> {
  const lore = await launch(
    'pnpm',
    ['--silent', 'start'],
    { ...env, LORE_LOG_LEVEL: 'info', LORE_DATA_DIR: join(dataDir, 'aio-model') },
    /Lore is running at (\S+)/,
  );
  try {
    const deadline = performance.now() + 120_000;
    while (!lore.output().includes('embedding model loaded')) {
      if (performance.now() > deadline) throw new Error('the embedding model did not load within 120 s');
      await settle(0.5);
    }
    await settle(idleSeconds);
    const loaded = treeRss(lore.child.pid!);
    process.stderr.write(`pnpm start with the model leaves: ${loaded.processes.join(', ')}\n`);
    return row({
      suite: 'memory',
      name: "RSS with the embedding model loaded, pnpm start's processes",
      value: loaded.mib,
      unit: 'MiB',
      baseline: { name: 'the same, model not loaded', value: without },
      target: '< 220 MB (209.8 MiB)',
      met: loaded.mib < 220e6 / 2 ** 20,
    });
  } finally {
    await lore.stop();
  }
}
