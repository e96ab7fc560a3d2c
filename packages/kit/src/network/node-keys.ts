import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';

/**
 * A node's signing key as the directory holds it. Believed only when the network key endorses
 * it, or (on a network without one) when it is the key first seen for the node, or a rotation
 * from that key signed by it.
 */
export interface NodeKeyRecord {
  node: string;
  publicKey: string;
  /** The network key's signature over {@link endorsementPayload}, base64. */
  endorsement?: string;
  /** The key this one replaces, and that key's signature over {@link rotationPayload}, base64. */
  rotatedFrom?: { publicKey: string; signature: string };
}

/** What the network key signs to admit a node's key. */
export const endorsementPayload = (node: string, publicKey: string) =>
  Buffer.from(`lore-node-key\n${node}\n${publicKey.trim()}\n`);
/** What a node's old key signs to hand over to its new one. */
export const rotationPayload = (node: string, publicKey: string) =>
  Buffer.from(`lore-node-key-rotation\n${node}\n${publicKey.trim()}\n`);

function verifies(publicKeyPem: string, data: Buffer, signatureB64: string): boolean {
  try {
    return verify(null, data, createPublicKey(publicKeyPem), Buffer.from(signatureB64, 'base64'));
  } catch {
    return false;
  }
}

/** A new Ed25519 key pair (PEM), for the network key. */
export function createNetworkKey(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** The network key's endorsement of a node's key (what `lore network sign-node` prints). */
export function endorseNodeKey(networkPrivateKey: string, node: string, publicKey: string): string {
  return sign(null, endorsementPayload(node, publicKey), createPrivateKey(networkPrivateKey)).toString(
    'base64',
  );
}

/** The old key's statement that hands a node over to a new key. */
export function signRotation(oldPrivateKey: string, node: string, newPublicKey: string): string {
  return sign(null, rotationPayload(node, newPublicKey), createPrivateKey(oldPrivateKey)).toString('base64');
}

export function endorsementValid(networkKey: string, record: NodeKeyRecord): boolean {
  return (
    !!record.endorsement &&
    verifies(networkKey, endorsementPayload(record.node, record.publicKey), record.endorsement)
  );
}

/** True when `record` is a rotation away from `previousKey`, signed by it. */
export function rotationValid(previousKey: string, record: NodeKeyRecord): boolean {
  const r = record.rotatedFrom;
  return (
    !!r &&
    r.publicKey.trim() === previousKey.trim() &&
    verifies(previousKey, rotationPayload(record.node, record.publicKey), r.signature)
  );
}

export type NodeKeyVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Whether `next` may take the place of `current` (null when the node is new), under the
 * network key when there is one.
 */
export function judgeNodeKey(
  current: NodeKeyRecord | null,
  next: NodeKeyRecord,
  networkKey: string | undefined,
): NodeKeyVerdict {
  if (networkKey) {
    return endorsementValid(networkKey, next)
      ? { ok: true }
      : { ok: false, reason: `the key of node ${next.node} is not endorsed by the network key` };
  }
  if (!current || current.publicKey.trim() === next.publicKey.trim()) return { ok: true };
  return rotationValid(current.publicKey, next)
    ? { ok: true }
    : {
        ok: false,
        reason: `node ${next.node} already has another key (a change needs a rotation signed by it)`,
      };
}

export class NodeKeyRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NodeKeyRefusedError';
  }
}

/**
 * What a reader believes of the directory: each node's key pinned the first time it is seen
 * (or endorsed by the network key), moving on only along signed rotations. A record that
 * breaks the rule is refused (reported once per record) and the pinned key stays.
 */
export class NodeKeyTrust {
  private readonly pins = new Map<string, NodeKeyRecord>();
  private readonly reported = new Set<string>();

  constructor(
    readonly networkKey: string | undefined,
    private readonly onRefused: (node: string, reason: string) => void = () => {},
    known: NodeKeyRecord[] = [],
  ) {
    for (const r of known) this.pins.set(r.node, r);
  }

  /** Pins a key known first-hand (this node's own, or one just written): the bucket cannot talk a reader out of it. */
  pin(record: NodeKeyRecord): void {
    this.pins.set(record.node, record);
  }

  /** The key to check a node's signatures with, given the directory's record; null when none is believed. */
  believe(record: NodeKeyRecord | null, node: string): string | null {
    const pinned = this.pins.get(node) ?? null;
    if (!record || record.node !== node) return this.networkKey ? null : (pinned?.publicKey ?? null);
    const verdict = judgeNodeKey(pinned, record, this.networkKey);
    if (verdict.ok) {
      this.pins.set(node, record);
      return record.publicKey;
    }
    const mark = `${node}\n${record.publicKey}`;
    if (!this.reported.has(mark)) {
      this.reported.add(mark);
      this.onRefused(node, verdict.reason);
    }
    return this.networkKey ? null : (pinned?.publicKey ?? null);
  }
}
