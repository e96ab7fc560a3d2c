import { defineConfig } from 'tsdown';

export default defineConfig({
  // The parser thread's entry lands beside the chunks as dist/parse-worker.js (see src/pool.ts).
  entry: {
    index: 'src/index.ts',
    // Text parsing alone, for task modules that run in a parser thread (no embeddings client, no zod).
    text: 'src/text.ts',
    'parse-worker': 'src/parse-worker.ts',
  },
  format: 'esm',
  dts: true,
  platform: 'node',
  target: 'node20',
  // `.js` files, as package.json's publishConfig.exports names them (the package is type: module).
  // Every chunk lands directly in dist/, beside parse-worker.js, which the pool loads by URL.
  fixedExtension: false,
});
