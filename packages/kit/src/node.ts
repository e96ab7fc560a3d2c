import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoreConfig } from './config.js';
import { signRotation } from './network/node-keys.js';

export interface NodeIdentity {
  id: string;
  /** Ed25519 keys that sign envelopes crossing to other nodes (PEM). */
  publicKey: string;
  privateKey: string;
  /** The network key's endorsement of `publicKey` (`lore network sign-node`), when the network has a key. */
  endorsement?: string;
  /** After a rotation: the previous key and its signature handing the node over to this one. */
  rotatedFrom?: { publicKey: string; signature: string };
}

/**
 * This deployment's identity, made once and kept in the data directory: a node id (or the
 * configured one) and its signing key pair.
 */
export function loadNodeIdentity(config: LoreConfig): NodeIdentity {
  const dir = config.LORE_DATA_DIR;
  const file = join(dir, 'node.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as NodeIdentity;
    const endorsed = config.LORE_NODE_ENDORSEMENT
      ? { ...saved, endorsement: config.LORE_NODE_ENDORSEMENT }
      : saved;
    return config.LORE_NODE_ID ? { ...endorsed, id: config.LORE_NODE_ID } : endorsed;
  }
  mkdirSync(dir, { recursive: true });
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const identity: NodeIdentity = {
    id: config.LORE_NODE_ID ?? `node-${randomBytes(4).toString('hex')}`,
    publicKey,
    privateKey,
    ...(config.LORE_NODE_ENDORSEMENT ? { endorsement: config.LORE_NODE_ENDORSEMENT } : {}),
  };
  writeFileSync(file, JSON.stringify(identity, null, 2), { mode: 0o600 });
  return identity;
}

/**
 * A new key pair for the node, handed over by the old key: the directory accepts the new key
 * because the old one signed it. (On a network with a network key, the new key needs a new
 * endorsement instead.)
 */
export function rotateNodeIdentity(identity: NodeIdentity): NodeIdentity {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    id: identity.id,
    publicKey,
    privateKey,
    rotatedFrom: {
      publicKey: identity.publicKey,
      signature: signRotation(identity.privateKey, identity.id, publicKey),
    },
  };
}
