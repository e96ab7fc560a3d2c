import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts'],
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's publishConfig.exports names them (the package is type: module).
  fixedExtension: false,
});
