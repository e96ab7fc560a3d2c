import { serviceBuild } from '../../tsdown.base.ts';

// dist/prepare-source.js is the parser thread's task module (see domain/ingest.ts).
export default serviceBuild({ 'prepare-source': 'src/domain/prepare-source.ts' });
