import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type LoreConfig } from './config.js';
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

/** Where a process keeps its node identity: LORE_NODE_FILE, or node.json in its data directory. */
export function nodeIdentityFile(config: Pick<LoreConfig, 'LORE_DATA_DIR' | 'LORE_NODE_FILE'>): string {
  return config.LORE_NODE_FILE ?? join(config.LORE_DATA_DIR, 'node.json');
}

/** A node identity file's contents, or a ConfigError naming the variable that points at it. */
function readIdentity(file: string, variable: string): NodeIdentity {
  let saved: Partial<NodeIdentity>;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<NodeIdentity>;
  } catch (err) {
    throw new ConfigError([`${variable}: ${file} is not a node identity file (${(err as Error).message})`]);
  }
  for (const field of ['id', 'publicKey', 'privateKey'] as const)
    if (typeof saved[field] !== 'string' || !saved[field])
      throw new ConfigError([
        `${variable}: ${file} has no ${field} (make one with \`pnpm node-identity <id>\`)`,
      ]);
  return saved as NodeIdentity;
}

/**
 * This deployment's identity, made once and kept in the data directory (or read from
 * LORE_NODE_FILE, which is never made here: the processes sharing it must not each make their
 * own): a node id (or the configured one) and its signing key pair.
 */
export function loadNodeIdentity(config: LoreConfig): NodeIdentity {
  const dir = config.LORE_DATA_DIR;
  if (config.LORE_NODE_FILE && !existsSync(config.LORE_NODE_FILE))
    throw new ConfigError([
      `LORE_NODE_FILE: ${config.LORE_NODE_FILE} does not exist (make it once with \`pnpm node-identity <id> > node.json\`)`,
    ]);
  const file = nodeIdentityFile(config);
  if (existsSync(file)) {
    const saved = readIdentity(file, config.LORE_NODE_FILE ? 'LORE_NODE_FILE' : 'LORE_DATA_DIR');
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
