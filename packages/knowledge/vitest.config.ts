import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@lore/knowledge',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Slow: run by `pnpm test:faults`.
    exclude: [...configDefaults.exclude, 'test/ingest-bomb.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
