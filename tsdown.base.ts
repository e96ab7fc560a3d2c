import { defineConfig, type UserConfig } from 'tsdown';

/**
 * How every package builds (`tsdown` in its directory): ES modules for Node 20 with their type
 * declarations, `.js` files as package.json's `bin` and `publishConfig.exports` name them
 * (type: module). A service's entries are `src/index.ts` (the library the aggregator imports)
 * and `src/main.ts` (the `lore-<service>` bin; the source's `#!/usr/bin/env node` line is kept
 * and tsdown marks the file executable). Dependencies, `@lore/kit` and `@lore/schema` included,
 * stay external: they are installed beside the package. Chunks land directly in dist/, so
 * `migrationsFolder(import.meta.url)` finds ../migrations, which ships in the tarball.
 */
export const packageBuild = (entry: UserConfig['entry']) =>
  defineConfig({
    entry,
    format: 'esm',
    dts: true,
    platform: 'node',
    target: 'node20',
    fixedExtension: false,
  });

/** A service: the library and the bin, plus any module it starts as a thread or process of its own. */
export const serviceBuild = (extra: Record<string, string> = {}) =>
  packageBuild({ index: 'src/index.ts', main: 'src/main.ts', ...extra });
