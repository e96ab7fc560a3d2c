import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, NatsServerProcess } from './nats.js';

export interface ShutdownOutcome {
  /** The process's exit code, or 'hung' when it outlived the bound by five seconds. */
  code: number | null | 'hung';
  /** From SIGTERM to exit. */
  ms: number;
  stderr: string;
}

/**
 * Starts a Lore entry point (through tsx, from its TypeScript source) on a private NATS server,
 * waits until it is ready, kills the NATS server, waits until readiness says so, then sends
 * SIGTERM and reports how the process ended. The private server has no authentication, so the
 * process runs with LORE_NATS_INSECURE.
 */
export async function stopAfterNatsDies(opts: {
  tsx: string;
  args: string[];
  boundMs: number;
}): Promise<ShutdownOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-shutdown-'));
  const nats = new NatsServerProcess(await freePort(), join(dir, 'js'));
  await nats.start();
  const port = await freePort();
  const child = spawn(opts.tsx, ['--conditions=development', ...opts.args], {
    env: {
      ...process.env,
      LORE_DATA_DIR: dir,
      LORE_PORT: String(port),
      LORE_LOG_LEVEL: 'warn',
      NATS_URL: nats.url,
      LORE_NATS_INSECURE: 'true',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = () =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
  const until = async (ok: (status: number) => boolean, timeoutMs: number, what: string) => {
    const end = Date.now() + timeoutMs;
    while (!ok(await ready())) {
      if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms; stderr:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    await until((s) => s === 200, 60_000, 'the process was not ready');
    await nats.kill();
    // The process has noticed: readiness reflects the NATS connection.
    await until((s) => s !== 200, 20_000, 'readiness did not notice NATS going away');
    const t0 = performance.now();
    child.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), opts.boundMs + 5000).unref()),
    ]);
    return { code, ms: performance.now() - t0, stderr };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    await nats.kill().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
