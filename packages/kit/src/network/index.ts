import type { EventBus } from '../bus/types.js';
import type { NodeIdentity } from '../node.js';
import { type DirectoryTrust, MemoryDirectory, NatsDirectory, type NetworkDirectory } from './directory.js';

export type { AgentCard, DirectoryTrust, HandleRecord, NetworkDirectory, NodeKeyProof } from './directory.js';
export type { NodeKeyRecord } from './node-keys.js';
export {
  createNetworkKey,
  endorseNodeKey,
  NodeKeyRefusedError,
  NodeKeyTrust,
  signRotation,
} from './node-keys.js';

import { NodeKeyRefusedError } from './node-keys.js';

export { signAnnouncement } from './announcements.js';
export { handleKey, MemoryDirectory, NatsDirectory, qualifiedHandle } from './directory.js';
export { NetworkLink } from './federation.js';
export { NET_PREFIX, netSubjects, networkUserPermissions, parseNetSubject } from './federation-subjects.js';
export type {
  Announcement,
  CarriedEvent,
  NetworkLinkOptions,
  NetworkTraffic,
  Receipt,
  Refusal,
  Route,
} from './federation-types.js';
export { DIRECTORY_TTL_ANNOUNCES } from './federation-types.js';
export type { SignedEnvelope, VerifyOutcome } from './signing.js';
export { EnvelopeSigner, verifyEnvelope } from './signing.js';

/** The directory that matches the bus: JetStream KV on NATS, in-process otherwise. */
export async function createDirectory(bus: EventBus, trust: DirectoryTrust = {}): Promise<NetworkDirectory> {
  const conn = (bus as { connection?: unknown }).connection;
  const replicas = (bus as { replicas?: number }).replicas ?? 1;
  if (bus.kind === 'nats' && conn)
    return NatsDirectory.open(conn as Parameters<typeof NatsDirectory.open>[0], '', replicas, trust);
  return new MemoryDirectory(trust);
}

/**
 * Publishes this node's key in the directory. A refusal (another key holds the node id, or the
 * network key does not endorse this one) is logged, not fatal: the node still serves its own
 * agents, and other nodes drop what it signs until its operator fixes the key.
 */
export async function registerNodeKey(
  directory: NetworkDirectory,
  node: NodeIdentity,
  log: { error(obj: object, msg: string): void },
): Promise<boolean> {
  try {
    await directory.registerNode(node.id, node.publicKey, {
      ...(node.endorsement ? { endorsement: node.endorsement } : {}),
      ...(node.rotatedFrom ? { rotatedFrom: node.rotatedFrom } : {}),
    });
    return true;
  } catch (err) {
    if (!(err instanceof NodeKeyRefusedError)) throw err;
    log.error({ node: node.id, reason: err.message }, 'node key refused by the directory');
    return false;
  }
}

/** The directory's trust settings from the configuration, logging every refused node key. */
export function directoryTrust(
  config: { LORE_NETWORK_KEY?: string },
  log: { warn(obj: object, msg: string): void },
  node?: NodeIdentity,
): DirectoryTrust {
  return {
    ...(config.LORE_NETWORK_KEY ? { networkKey: config.LORE_NETWORK_KEY } : {}),
    ...(node ? { ownNode: { node: node.id, publicKey: node.publicKey } } : {}),
    onRefused: (node, reason) => log.warn({ node, reason }, 'node key in the directory refused'),
  };
}
