import { packageBuild } from '../../tsdown.base.ts';

// The parser thread's entry lands beside the chunks as dist/parse-worker.js (see src/parsers.ts).
export default packageBuild({
  index: 'src/index.ts',
  // Text parsing alone, for task modules that run in a parser thread (no embeddings client, no zod).
  text: 'src/text.ts',
  'parse-worker': 'src/parse-worker.ts',
});
