import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, NatsServerProcess, tempDir } from '@lore/kit/testing';
import { describe, expect, it } from 'vitest';

/** How long a service may take to stop after SIGTERM once its NATS server is gone. */
const SHUTDOWN_BOUND_MS = 20_000;

describe('the users service as a process', () => {
  it('stops on SIGTERM within its bound after the NATS server it uses died', async () => {
    const dir = tempDir();
    const nats = new NatsServerProcess(await freePort(), join(dir.path, 'js'));
    await nats.start();
    const port = await freePort();
    const main = join(import.meta.dirname, '../src/main.ts');
    const tsx = join(import.meta.dirname, '../node_modules/.bin/tsx');
    const child = spawn(existsSync(tsx) ? tsx : 'tsx', ['--conditions=development', main], {
      env: {
        ...process.env,
        LORE_DATA_DIR: dir.path,
        LORE_PORT: String(port),
        LORE_LOG_LEVEL: 'warn',
        NATS_URL: nats.url,
        // A private server without authentication, started by this test.
        LORE_NATS_INSECURE: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const ready = () =>
        fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
      await expect.poll(ready, { timeout: 60_000, interval: 200 }).toBe(200);
      await nats.kill();
      // The service has noticed: readiness reflects the NATS connection.
      await expect.poll(ready, { timeout: 20_000, interval: 200 }).not.toBe(200);
      const t0 = performance.now();
      child.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<'hung'>((r) => setTimeout(() => r('hung'), SHUTDOWN_BOUND_MS + 5000).unref()),
      ]);
      const ms = performance.now() - t0;
      expect(code, stderr).toBe(0);
      expect(ms).toBeLessThan(SHUTDOWN_BOUND_MS);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      await nats.kill().catch(() => {});
      dir.cleanup();
    }
  }, 120_000);
});
