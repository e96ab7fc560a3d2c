import { packageBuild } from '../../tsdown.base.ts';

export default packageBuild(['src/index.ts']);
