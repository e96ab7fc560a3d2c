import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { FAULT_TESTS } from '../../../../vitest.tiers.js';

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
    testTimeout: 300_000,
    hookTimeout: 180_000,
    // Lore processes the tests start inherit it: no embedding model unless a test asks for one.
    env: { LORE_EMBEDDINGS: 'off' },
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
