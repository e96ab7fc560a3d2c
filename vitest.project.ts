import { basename } from 'node:path';
import { configDefaults, defineProject } from 'vitest/config';
import { otherTiers } from './vitest.tiers.js';
import { TIMING_ENV, tierTimeouts } from './vitest.timing.js';

/**
 * A workspace package's vitest project for `pnpm test` (the default tier): `@lore/<folder>`, its
 * `src` and `test` files but those of `pnpm test:slow` and `pnpm test:faults` (vitest.tiers.ts),
 * timeouts sized for a busy 2-core machine and scaled by LORE_TEST_TIME_SCALE
 * (vitest.timing.ts). `env` adds to what the tests (and the processes they start) inherit.
 */
export function packageProject(dir: string, env: Record<string, string> = {}) {
  return defineProject({
    test: {
      name: `@lore/${basename(dir)}`,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: [...configDefaults.exclude, ...otherTiers(dir)],
      ...tierTimeouts('default'),
      env: { ...TIMING_ENV, ...env },
    },
  });
}
