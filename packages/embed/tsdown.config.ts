import { defineConfig } from 'tsdown';

export default defineConfig({
  // The model thread's entry lands beside the chunks as dist/local-worker.js (see src/thread.ts).
  entry: {
    index: 'src/index.ts',
    'local-worker': 'src/local-worker.ts',
    // The thread helper alone, for code that must not load zod (@lore/ingest's parser threads).
    thread: 'src/thread.ts',
  },
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's publishConfig.exports names them (the package is type: module).
  // Every chunk lands directly in dist/, beside local-worker.js, which the embedder loads by URL.
  fixedExtension: false,
});
