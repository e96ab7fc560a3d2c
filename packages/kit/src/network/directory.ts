import type { NodeKeyRecord } from './node-keys.js';

export { MemoryDirectory } from './memory-directory.js';
export { NatsDirectory } from './nats-directory.js';

/** How a node proves its key: the network key's endorsement, or a rotation signed by its previous key. */
export type NodeKeyProof = Pick<NodeKeyRecord, 'endorsement' | 'rotatedFrom'>;

/** What the directory believes of node keys: the network key (public PEM), and who hears of refusals. */
export interface DirectoryTrust {
  networkKey?: string;
  onRefused?: (node: string, reason: string) => void;
  /** This node's own key, known first-hand: believed whatever the bucket says. */
  ownNode?: NodeKeyRecord;
}

export interface HandleRecord {
  agentId: string;
  node: string;
  /**
   * Learned from another operator's node over the network (its signed announcement), not
   * claimed on this NATS: a local claim of the same handle takes it over, and the other
   * node's agent is then known by its qualified handle (`alice@node-c`).
   */
  network?: boolean;
}

/** `alice@node-c` as a bucket key (KV keys have no `@`; handles and node ids have no `.`). */
export const handleKey = (handle: string) => handle.replace('@', '.');
/** The handle `handle` of node `node`, qualified. */
export const qualifiedHandle = (handle: string, node: string) => `${handle.split('@')[0]}@${node}`;

/**
 * What every node may know of an agent hosted elsewhere: its public profile and presence, so
 * that discovery spans the network. Only what the agent itself published, never private data.
 */
export interface AgentCard {
  agentId: string;
  handle: string;
  node: string;
  displayName: string;
  bio: string;
  skills: Array<{ name: string; level: string }>;
  interests: string[];
  /** Epoch ms of the agent's last authenticated call, null when it never made one. */
  lastSeen: number | null;
  createdAt: number;
  /** The rest of the agent's public profile (cards written before it existed lack it). */
  profile?: {
    location: string | null;
    timezone: string | null;
    capabilities: Record<string, unknown> & { other: string[] };
    links: Record<string, string | undefined>;
  };
}

/**
 * Who is where on the network: which node hosts each handle (a handle is claimed once across
 * every node), and each node's public signing key.
 */
export interface NetworkDirectory {
  readonly kind: 'memory' | 'nats';
  /** Claim a handle for an agent; false when another agent already holds it. */
  claimHandle(handle: string, record: HandleRecord): Promise<boolean>;
  releaseHandle(handle: string, agentId: string): Promise<void>;
  lookupHandle(handle: string): Promise<HandleRecord | null>;
  /** Every claimed handle on the network. */
  listHandles(): Promise<Array<{ handle: string } & HandleRecord>>;
  /**
   * Records an agent of another operator's node, as its node announced it (the network link
   * checked the announcement's signature). False when a local claim holds the handle.
   */
  putNetworkHandle(handle: string, record: HandleRecord): Promise<boolean>;
  /** Forgets a handle learned from node `node` (no longer in its announcements). */
  removeNetworkHandle(handle: string, node: string): Promise<void>;
  /**
   * Publish a node's signing key (every process of a node shares it). Refused with
   * {@link NodeKeyRefusedError} when the network key does not endorse it or, without a network
   * key, when the node already has another key and this one is not a rotation signed by it.
   */
  registerNode(nodeId: string, publicKeyPem: string, proof?: NodeKeyProof): Promise<void>;
  /**
   * The local operator's confirmation of a node's new key (one it could not prove with a rotation):
   * written and pinned in place of the old one.
   */
  replaceNodeKey(nodeId: string, publicKeyPem: string): Promise<void>;
  /** The node's key, when the directory's record of it is believed (none, or the pinned one, otherwise). */
  nodeKeys(nodeId: string, options?: { fresh?: boolean }): Promise<string[]>;
  /** Publish (or replace) an agent's card for the whole network. */
  putAgentCard(card: AgentCard): Promise<void>;
  removeAgentCard(handle: string): Promise<void>;
  /** Every agent card on the network. */
  agentCards(): Promise<AgentCard[]>;
  close(): Promise<void>;
}
