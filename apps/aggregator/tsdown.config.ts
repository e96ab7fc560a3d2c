import { defineConfig } from 'tsdown';

/**
 * dist/index.js (the library) and dist/main.js (the `lore` bin; the source's
 * `#!/usr/bin/env node` line is kept and tsdown marks the file executable). Every dependency,
 * the Lore services included, stays external and is installed beside the package.
 */
export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's bin and publishConfig.exports name them (type: module).
  fixedExtension: false,
});
