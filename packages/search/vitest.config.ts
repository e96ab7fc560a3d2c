import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@lore/search',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
