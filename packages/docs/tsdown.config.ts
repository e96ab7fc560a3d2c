import { serviceBuild } from '../../tsdown.base.ts';

// dist/prepare.js is the parser thread's task module (see domain/ingest.ts).
export default serviceBuild({ prepare: 'src/domain/prepare.ts' });
