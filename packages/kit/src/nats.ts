/**
 * `@lore/kit/nats`: what needs the NATS client itself. The main entry loads the client only when
 * a bus connects to NATS (`createBus`), so a process without `NATS_URL` never has it in memory;
 * import from here to use these directly (tests, benchmarks, `lore jetstream`).
 */
export { backupStream, restoreStream } from './bus/backup.js';
export { JETSTREAM_USAGE, runJetStreamCli } from './bus/backup-cli.js';
export { type BusErrorHandler, NatsBus, type NatsBusOptions, natsServers } from './bus/nats.js';
export { natsAuthenticator } from './bus/nats-authenticator.js';
export {
  checkEventStream,
  eventStreamConfig,
  eventStreamDifferences,
  isPermissionDenied,
  loreBuckets,
  openBucket,
  PROVISION_HINT,
  type ProvisionOptions,
  provisionJetStream,
  StreamSetupError,
} from './bus/provision.js';
