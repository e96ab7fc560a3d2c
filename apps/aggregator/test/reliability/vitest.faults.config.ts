import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { FAULT_TESTS } from '../../../../vitest.tiers.js';
import { TIMING_ENV, tierTimeouts } from '../../../../vitest.timing.js';

/**
 * The slow fault tests (`pnpm test:faults`): crash safety with kill -9 of processes and NATS, no
 * question lost while knowledge and approvals are down for 60 s, and
 * 30 s of load. Listed in vitest.tiers.ts, which keeps them out of `pnpm test`; run one file at a
 * time so that the load test measures a quiet process, with --expose-gc for its memory figures.
 */
const repo = fileURLToPath(new URL('../../../../', import.meta.url));

export default defineConfig({
  test: {
    name: 'faults',
    root: repo,
    include: [...FAULT_TESTS],
    fileParallelism: false,
    execArgv: ['--expose-gc'],
    // Sized for a busy 2-core machine, scaled by LORE_TEST_TIME_SCALE (vitest.timing.ts).
    ...tierTimeouts('faults'),
    // A private nats-server unless NATS_URL names one (tools/vitest-nats.ts).
    globalSetup: ['./tools/vitest-nats.ts'],
    // Lore processes the tests start inherit it: no embedding model unless a test asks for one.
    env: { ...TIMING_ENV, LORE_EMBEDDINGS: 'off' },
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
