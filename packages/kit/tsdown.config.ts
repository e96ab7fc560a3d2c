import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    // The NATS client's users (NatsBus, JetStream backups): the main entry loads them on demand.
    nats: 'src/nats.ts',
    'testing/index': 'src/testing/index.ts',
  },
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's publishConfig.exports names them (the package is type: module).
  // Every chunk lands directly in dist/, so `new URL('../migrations', import.meta.url)` in the
  // built code finds packages/kit/migrations, which ships in the tarball.
  fixedExtension: false,
});
