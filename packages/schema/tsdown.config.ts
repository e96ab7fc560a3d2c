import { defineConfig } from 'tsdown';

export default defineConfig({
  // Every module is an entry of its own (`@lore/schema/users`, `@lore/schema/common`…): a service
  // that imports only the schemas it uses does not build every other service's at load. The
  // index re-exports them all, for the aggregator and the tests.
  entry: ['src/*.ts'],
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's publishConfig.exports names them (the package is type: module).
  fixedExtension: false,
});
