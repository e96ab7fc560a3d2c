import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoreConfig } from './config.js';

export interface NodeIdentity {
  id: string;
  /** Ed25519 keys that sign envelopes crossing to other nodes (PEM). */
  publicKey: string;
  privateKey: string;
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
    return config.LORE_NODE_ID ? { ...saved, id: config.LORE_NODE_ID } : saved;
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
  };
  writeFileSync(file, JSON.stringify(identity, null, 2), { mode: 0o600 });
  return identity;
}
