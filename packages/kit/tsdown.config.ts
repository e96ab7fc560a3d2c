import { packageBuild } from '../../tsdown.base.ts';

export default packageBuild({
  index: 'src/index.ts',
  'entries/bus': 'src/entries/bus.ts',
  'entries/db': 'src/entries/db.ts',
  'entries/moderation': 'src/entries/moderation.ts',
  // The NATS client's users (NatsBus, JetStream backups): the main entry loads them on demand.
  nats: 'src/nats.ts',
  'testing/index': 'src/testing/index.ts',
});
