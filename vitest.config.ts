import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    // Most files wait on servers, NATS and databases rather than compute: with one worker per core
    // (two here) `pnpm test` used about one core and took 232 s; with four it took 128 s, all passing.
    maxWorkers: 4,
    // A private nats-server unless NATS_URL names one (tools/vitest-nats.ts).
    globalSetup: ['./tools/vitest-nats.ts'],
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
