import { chmod } from 'node:fs/promises';
import { defineConfig } from 'tsdown';

/**
 * dist/index.js (the library the aggregator imports) and dist/main.js (the bin). Dependencies,
 * @lore/kit and @lore/schema included, stay external: they are installed beside the package.
 * Chunks land directly in dist/, so `migrationsFolder(import.meta.url)` finds ../migrations.
 */
export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  fixedExtension: false,
  hooks: { 'build:done': () => chmod('dist/main.js', 0o755) },
});
