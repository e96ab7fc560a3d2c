import { configDefaults, defineProject } from 'vitest/config';
import { otherTiers } from '../../vitest.tiers.js';

export default defineProject({
  test: {
    name: '@lore/embed',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The files of `pnpm test:slow` and `pnpm test:faults` (see vitest.tiers.ts).
    exclude: [...configDefaults.exclude, ...otherTiers('packages/embed')],
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
