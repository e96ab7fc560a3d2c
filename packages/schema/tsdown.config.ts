import { packageBuild } from '../../tsdown.base.ts';

// Every module is an entry of its own (`@lore/schema/users`, `@lore/schema/common`…): a service
// that imports only the schemas it uses does not build every other service's at load. The
// index re-exports them all, for the aggregator and the tests.
export default packageBuild(['src/*.ts']);
