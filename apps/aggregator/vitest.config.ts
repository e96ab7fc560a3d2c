import { configDefaults, defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@lore/aggregator',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The slow fault tests run with `pnpm test:faults` (test/reliability/vitest.faults.config.ts).
    exclude: [
      ...configDefaults.exclude,
      'test/reliability/{crash,load,outage,sqld-flows,nats-cluster,consumer-names}.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
