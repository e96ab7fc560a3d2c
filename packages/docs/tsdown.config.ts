import { defineConfig } from 'tsdown';

/**
 * dist/index.js (the library the aggregator imports) and dist/main.js (the `lore-<service>` bin;
 * the source's `#!/usr/bin/env node` line is kept and tsdown marks the file executable).
 * Dependencies, @lore/kit and @lore/schema included, stay external: they are installed beside
 * the package. Chunks land directly in dist/, so `migrationsFolder(import.meta.url)` finds
 * ../migrations, which ships in the tarball.
 */
export default defineConfig({
  // dist/prepare.js is the parser thread's task module (see domain/ingest.ts).
  entry: { index: 'src/index.ts', main: 'src/main.ts', prepare: 'src/domain/prepare.ts' },
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's bin and publishConfig.exports name them (type: module).
  fixedExtension: false,
});
