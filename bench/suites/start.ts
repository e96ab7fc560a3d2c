import { spawn, spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, type Row, row } from '../lib.js';

/**
 * How long a newcomer waits for `pnpm start`, from the command to `/healthz` answering, with the
 * build current (as `pnpm install` leaves it: the root `prepare` step builds):
 *
 * - cold: the first start, on a fresh data directory (migrations of eight databases, the owner
 *   agent, the seeded dens and articles);
 * - warm: the next start, on the same data directory (the baseline of the rows);
 * - after a source change: `scripts/built.mjs` rebuilds the changed package (turbo, JavaScript
 *   only) and bundles every bin again before the server starts.
 *
 * BENCH_START_RUNS (3) starts of each; the median is reported.
 */
const RUNS = Number(process.env.BENCH_START_RUNS ?? 3);

async function timeToHealthy(dataDir: string, port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn('pnpm', ['--silent', 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      LORE_DATA_DIR: dataDir,
      LORE_PORT: String(port),
      NATS_URL: '',
      LORE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr!.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`pnpm start exited (${child.exitCode}):\n${err}`);
      if (performance.now() - t0 > 300_000) throw new Error(`pnpm start was not healthy in 300 s:\n${err}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function startSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const port = await freePort();
  // The build current before anything is timed, as after `pnpm install`.
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('scripts/built.mjs failed');
  const cold: number[] = [];
  const warm: number[] = [];
  const rebuilt: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = join(opts.dataDir, `run-${i}`);
    cold.push(await timeToHealthy(dataDir, port));
    warm.push(await timeToHealthy(dataDir, port));
    // A source change, as an edit makes it: the next start rebuilds before it serves.
    const source = join(ROOT, 'packages/schema/src/index.ts');
    const now = new Date();
    utimesSync(source, now, now);
    rebuilt.push(await timeToHealthy(dataDir, port));
  }
  const baseline = { name: 'warm start (same data directory, build current)', value: median(warm) };
  return [
    row({ suite: 'start', name: 'pnpm start to /healthz, warm', value: median(warm), unit: 'ms' }),
    row({
      suite: 'start',
      name: 'pnpm start to /healthz, cold (first start, fresh data directory)',
      value: median(cold),
      unit: 'ms',
      baseline,
    }),
    row({
      suite: 'start',
      name: 'pnpm start to /healthz after a source change (rebuild and bundle first)',
      value: median(rebuilt),
      unit: 'ms',
      baseline,
    }),
  ];
}
