import type { EventBus } from '../bus/types.js';
import { MemoryDirectory, NatsDirectory, type NetworkDirectory } from './directory.js';

export type { AgentCard, HandleRecord, NetworkDirectory } from './directory.js';
export { MemoryDirectory, NatsDirectory } from './directory.js';
export type { SignedEnvelope, VerifyOutcome } from './signing.js';
export { EnvelopeSigner, verifyEnvelope } from './signing.js';

/** The directory that matches the bus: JetStream KV on NATS, in-process otherwise. */
export async function createDirectory(bus: EventBus): Promise<NetworkDirectory> {
  const conn = (bus as { connection?: unknown }).connection;
  const replicas = (bus as { replicas?: number }).replicas ?? 1;
  if (bus.kind === 'nats' && conn)
    return NatsDirectory.open(conn as Parameters<typeof NatsDirectory.open>[0], '', replicas);
  return new MemoryDirectory();
}
