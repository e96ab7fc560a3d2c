import { configDefaults, defineProject } from 'vitest/config';
import { otherTiers } from '../../vitest.tiers.js';
import { TIMING_ENV, tierTimeouts } from '../../vitest.timing.js';

export default defineProject({
  test: {
    name: '@lore/queries',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The files of `pnpm test:slow` and `pnpm test:faults` (see vitest.tiers.ts).
    exclude: [...configDefaults.exclude, ...otherTiers('packages/queries')],
    // Sized for a busy 2-core machine, scaled by LORE_TEST_TIME_SCALE (vitest.timing.ts).
    ...tierTimeouts('default'),
    env: TIMING_ENV,
  },
});
