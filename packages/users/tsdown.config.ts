import { serviceBuild } from '../../tsdown.base.ts';

export default serviceBuild({ testing: 'src/testing.ts' });
