import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stopAfterNatsDies } from '@lore/kit/testing';
import { describe, expect, it } from 'vitest';

/** How long `lore start` may take to stop after SIGTERM once its NATS server is gone. */
const SHUTDOWN_BOUND_MS = 20_000;

describe('`lore start` (every service in one process) on NATS', () => {
  it('stops on SIGTERM within its bound after the NATS server it uses died', async () => {
    const tsx = join(import.meta.dirname, '../node_modules/.bin/tsx');
    const r = await stopAfterNatsDies({
      tsx: existsSync(tsx) ? tsx : 'tsx',
      args: [join(import.meta.dirname, '../src/main.ts'), 'start'],
      boundMs: SHUTDOWN_BOUND_MS,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(SHUTDOWN_BOUND_MS);
  }, 120_000);
});
