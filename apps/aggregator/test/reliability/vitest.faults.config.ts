import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The slow fault tests (`pnpm test:faults`): crash safety with kill -9 of processes and NATS, no
 * question lost while knowledge and approvals are down for 60 s, and
 * 30 s of load. Kept out of `pnpm test` (see apps/aggregator/vitest.config.ts); run one file at a
 * time so that the load test measures a quiet process, with --expose-gc for its memory figures.
 */
const repo = fileURLToPath(new URL('../../../../', import.meta.url));

export default defineConfig({
  test: {
    name: 'faults',
    root: repo,
    include: [
      'apps/aggregator/test/reliability/{crash,load,outage,sqld-flows,nats-cluster,hostile,consumer-names}.test.ts',
      'packages/knowledge/test/ingest-bomb.test.ts',
      'packages/users/test/limits-replicas.test.ts',
    ],
    fileParallelism: false,
    execArgv: ['--expose-gc'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
