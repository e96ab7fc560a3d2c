import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.tiers.js';

/**
 * `pnpm test:slow`: the end-to-end suites listed in vitest.tiers.ts (packed tarballs, browsers,
 * entry-point processes, fuzzing, conformance runs), kept out of `pnpm test` so that it stays fast.
 * CI runs both.
 */
export default defineConfig({
  test: {
    name: 'slow',
    include: [...SLOW_TESTS],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Lore processes the tests start inherit it: no embedding model unless a test asks for one.
    env: { LORE_EMBEDDINGS: 'off' },
    reporters: ['default', './tools/vitest-summary-reporter.ts'],
  },
});
