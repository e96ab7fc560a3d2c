import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@lore/users',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Starts a nats-server: run by `pnpm test:faults`.
    exclude: [...configDefaults.exclude, 'test/limits-replicas.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
