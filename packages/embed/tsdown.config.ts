import { packageBuild } from '../../tsdown.base.ts';

// The model thread's entry lands beside the chunks as dist/local-worker.js (see src/thread.ts).
export default packageBuild({
  index: 'src/index.ts',
  'local-worker': 'src/local-worker.ts',
  // The thread helper alone, for code that must not load zod (@lore/ingest's parser threads).
  thread: 'src/thread.ts',
});
