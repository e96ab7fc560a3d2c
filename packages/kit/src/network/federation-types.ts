/** What a {@link NetworkLink} carries, what it answers, and how it is set up. */
import type { EventBus } from '../bus/types.js';
import type { Logger } from '../logger.js';
import type { NodeIdentity } from '../node.js';
import type { AgentCard, NetworkDirectory } from './directory.js';

/** A node's signed statement of who it is and whom it hosts. */
export interface Announcement {
  node: string;
  publicKey: string;
  rotatedFrom?: { publicKey: string; signature: string };
  endorsement?: string;
  /** Epoch ms: a node's announcements only move forward (an older one is a replay). */
  at: number;
  agents: Array<{ handle: string; agentId: string; card: AgentCard | null }>;
  /** Set when the node has just joined: the others announce themselves back. */
  hello?: boolean;
  /** The node's Ed25519 signature over the rest, base64. */
  signature: string;
}

/** Whom one carried event speaks for and whom it is for, read from its payload. */
export interface Route {
  /** The agent the event speaks for (the asker of a question, the agent answering). */
  sender: { id: string; node?: string } | undefined;
  /** The agents it is for; `node` when the event names the node hosting them. */
  recipients: Array<{ id: string; node?: string }>;
  /** Past this time (ISO) the event is not worth delivering any more. */
  expiresAt?: string;
}

/** An event of the node's stream that the link carries to other nodes. */
export interface CarriedEvent {
  subject: string;
  /** `ask`: to the nodes hosting its recipients; `answer`: back to the node hosting its recipient. */
  kind: 'ask' | 'answer';
  route(payload: unknown): Route;
}

/** What the link carries: the events, and the durable consumer it reads them with. */
export interface NetworkTraffic {
  events: readonly CarriedEvent[];
  /**
   * The consumer's name (the node id is appended) and the one subject filter (nats-server 2.9
   * takes one per consumer) covering every carried event; other events under it are passed over.
   */
  outbox: { consumer: string; filter: string };
}

export type Receipt = { ok: true } | { ok: false; error: string; retry: boolean };

/** Why an inbound message was refused (counted in {@link NetworkLink.refusals}). */
export type Refusal =
  | 'unreadable'
  | 'rate-limited'
  | 'not-from-sender'
  | 'wrong-event'
  | 'bad-signature'
  | 'not-addressed-here'
  | 'stale-announcement'
  | 'key-refused'
  | 'not-addressed'
  | 'sender-not-hosted'
  | 'too-large';

/** How long a node may be silent before its agents leave the directory, by default: five announce periods. */
export const DIRECTORY_TTL_ANNOUNCES = 5;

export interface NetworkLinkOptions {
  /** The operator's own NATS, as the `network` user of the account the leaf connection binds. */
  url: string;
  user: string;
  password: string;
  bus: EventBus;
  directory: NetworkDirectory;
  /** The events the link carries (the node's questions and answers). */
  traffic: NetworkTraffic;
  node: NodeIdentity;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How often the node announces itself (it also does when a node says hello). Default 30 s. */
  announceEveryMs?: number;
  /** Messages each other node may send this one per minute, and in a burst. Default 120, 60. */
  peerRate?: { perMinute: number; burst: number };
  /** The largest message accepted from another node (the hub checks no size on leaf connections). Default 256 KiB. */
  maxBytes?: number;
  /**
   * Keys the local operator confirmed for other nodes (node id → public PEM), read when a node
   * announces a key that is not its pinned one nor a rotation signed by it.
   */
  confirmedKeys?: () => Record<string, string>;
  /**
   * How long another node may go unheard (no announcement accepted) before its agents are removed
   * from the local directory. Default {@link DIRECTORY_TTL_ANNOUNCES} announce periods.
   */
  directoryTtlMs?: number;
  /** How long a peer's receipt is awaited before the message is queued for later. Default 5 s. */
  receiptTimeoutMs?: number;
  now?: () => number;
}
