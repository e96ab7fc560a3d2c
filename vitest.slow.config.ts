import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.tiers.js';
import { TIMING_ENV, tierTimeouts } from './vitest.timing.js';

/**
 * `pnpm test:slow`: the end-to-end suites listed in vitest.tiers.ts (packed tarballs, browsers,
 * entry-point processes, fuzzing, conformance runs), kept out of `pnpm test` so that it stays fast.
 * CI runs both.
 */
export default defineConfig({
  test: {
    name: 'slow',
    include: [...SLOW_TESTS],
    // Sized for a busy 2-core machine, scaled by LORE_TEST_TIME_SCALE (vitest.timing.ts).
    ...tierTimeouts('slow'),
    // A private nats-server unless NATS_URL names one (tools/vitest-nats.ts).
    globalSetup: ['./tools/vitest-nats.ts'],
    // Lore processes the tests start inherit it: no embedding model unless a test asks for one.
    env: { ...TIMING_ENV, LORE_EMBEDDINGS: 'off' },
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
