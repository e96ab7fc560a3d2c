import { configDefaults, defineProject } from 'vitest/config';
import { otherTiers } from '../../vitest.tiers.js';

export default defineProject({
  test: {
    name: '@lore/aggregator',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The files of `pnpm test:slow` and `pnpm test:faults` (see vitest.tiers.ts).
    exclude: [...configDefaults.exclude, ...otherTiers('apps/aggregator')],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Lore processes the tests start inherit it: no embedding model unless a test asks for one.
    env: { LORE_EMBEDDINGS: 'off' },
  },
});
