import { packageBuild } from '../../tsdown.base.ts';

export default packageBuild({
  index: 'src/index.ts',
  // The NATS client's users (NatsBus, JetStream backups): the main entry loads them on demand.
  nats: 'src/nats.ts',
  'testing/index': 'src/testing/index.ts',
});
