import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { EventEnvelope } from '@lore/schema/events';
import type { NodeIdentity } from '../node.js';
import type { NetworkDirectory } from './directory.js';

export type SignedEnvelope<P = unknown> = EventEnvelope<P>;

/** Canonical bytes: keys sorted at every level, the signature itself left out. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => k !== 'signature' && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export class EnvelopeSigner {
  private readonly key;

  constructor(private readonly identity: NodeIdentity) {
    this.key = createPrivateKey(identity.privateKey);
  }

  sign<P>(envelope: EventEnvelope<P>): SignedEnvelope<P> {
    const value = sign(null, Buffer.from(canonical(envelope)), this.key).toString('base64');
    return { ...envelope, signature: { node: this.identity.id, alg: 'ed25519', value } };
  }
}

export type VerifyOutcome = { ok: true; node: string } | { ok: false; reason: string };

/** Checks an envelope's signature against the signing node's key in the directory. */
export async function verifyEnvelope(
  envelope: SignedEnvelope,
  directory: NetworkDirectory,
): Promise<VerifyOutcome> {
  const sig = envelope.signature;
  if (sig?.alg !== 'ed25519' || typeof sig.value !== 'string') return { ok: false, reason: 'unsigned' };
  if (sig.node !== envelope.producer.node) return { ok: false, reason: 'signer is not the producer node' };
  let keys = await directory.nodeKeys(sig.node);
  if (!keys.length) return { ok: false, reason: `unknown node ${sig.node}` };
  const data = Buffer.from(canonical(envelope));
  const signature = Buffer.from(sig.value, 'base64');
  const check = (pems: string[]) =>
    pems.some((pem) => {
      try {
        return verify(null, data, createPublicKey(pem), signature);
      } catch {
        return false;
      }
    });
  if (check(keys)) return { ok: true, node: sig.node };
  // A process of that node may have joined since the keys were read.
  keys = await directory.nodeKeys(sig.node, { fresh: true });
  return check(keys) ? { ok: true, node: sig.node } : { ok: false, reason: 'bad signature' };
}

/** The metric label of a failed check (`lore_envelopes_dropped_total{reason}`). */
export function dropReason(verifyReason: string): string {
  if (verifyReason === 'unsigned') return 'unsigned';
  if (verifyReason.startsWith('unknown node')) return 'unknown-node';
  if (verifyReason.startsWith('signer is not')) return 'signer-not-producer';
  return 'bad-signature';
}

/** True when the envelope checks out; otherwise `onDrop` hears why (the label, and the detail). */
export async function believeEnvelope(
  envelope: SignedEnvelope,
  directory: NetworkDirectory,
  onDrop: (reason: string, detail: string) => void,
): Promise<boolean> {
  const v = await verifyEnvelope(envelope, directory);
  if (!v.ok) onDrop(dropReason(v.reason), v.reason);
  return v.ok;
}
