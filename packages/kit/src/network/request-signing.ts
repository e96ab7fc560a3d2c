/**
 * Requests that release, read or vouch for what is private carry the signature of the node's
 * own key, and their handlers check it: deciding a query (which releases a held answer),
 * retrieving an agent's passages and their sharing facts, evaluating the approval gate, and
 * verifying an API key. NATS permissions already keep these subjects to their one caller; the
 * signature holds where they do not (a NATS run with `LORE_NATS_INSECURE`, a leaked login), so
 * that nobody but a process holding the node's private key can act as the node.
 *
 * The signed bytes bind the subject (without its `.node.<id>` suffix), the payload, the node,
 * the time and a nonce; a handler accepts a signature by its own node, made within a minute,
 * once: with this process's own key (or the one it rotated from), or with a key the network
 * directory holds for this node (processes of one node may each have their own key; the
 * directory refuses a key that replaces a pinned one).
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
import { SIGNED_REQUESTS } from '@lore/schema/signed-requests';
import type { NodeIdentity } from '../node.js';
import { canonical } from './signing.js';

/** The requests whose handlers accept only this node's signature (declared with the contracts). */
export { SIGNED_REQUESTS };

export const REQUEST_SIGNATURE_HEADER = 'Lore-Request-Signature';

/** How far a signature's time may be from the handler's clock. */
const SKEW_MS = 60_000;
/** Nonces remembered (for twice the skew) against replays; past this many the oldest go. */
const MAX_NONCES = 100_000;

/** The subject a signature covers: a node's own form (`<subject>.node.<id>`) is the same request. */
export function signedSubject(subject: string): string {
  const at = subject.indexOf('.node.');
  return at < 0 ? subject : subject.slice(0, at);
}

const signedBytes = (subject: string, payload: unknown, node: string, at: number, nonce: string) =>
  Buffer.from(canonical({ subject: signedSubject(subject), payload: payload ?? null, node, at, nonce }));

export class RequestSigner {
  private readonly key: KeyObject;

  constructor(
    private readonly identity: NodeIdentity,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createPrivateKey(identity.privateKey);
  }

  /** The header value for a request: `<node> <time> <nonce> <signature>`. */
  sign(subject: string, payload: unknown): string {
    const at = this.now();
    const nonce = randomBytes(12).toString('base64url');
    const value = sign(null, signedBytes(subject, payload, this.identity.id, at, nonce), this.key);
    return `${this.identity.id} ${at} ${nonce} ${value.toString('base64')}`;
  }
}

export type RequestCheck = { ok: true } | { ok: false; reason: string };

export class RequestVerifier {
  private readonly keys: KeyObject[];
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly identity: NodeIdentity,
    /** This node's other processes' keys, from the directory (`fresh` skips its cache). */
    private readonly nodeKeys?: (fresh: boolean) => Promise<string[]>,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = [identity.publicKey, identity.rotatedFrom?.publicKey]
      .filter((k): k is string => !!k)
      .map((pem) => createPublicKey(pem));
  }

  async check(subject: string, payload: unknown, header: string | undefined): Promise<RequestCheck> {
    if (!header) return { ok: false, reason: 'unsigned' };
    const parts = header.split(' ');
    if (parts.length !== 4) return { ok: false, reason: 'malformed signature' };
    const [node, atText, nonce, value] = parts as [string, string, string, string];
    if (node !== this.identity.id) return { ok: false, reason: `signed by node ${node}, not this node` };
    const at = Number(atText);
    const now = this.now();
    if (!Number.isSafeInteger(at) || Math.abs(now - at) > SKEW_MS)
      return { ok: false, reason: 'signature outside the time window' };
    const data = signedBytes(subject, payload, node, at, nonce);
    const signature = Buffer.from(value, 'base64');
    const holds = (keys: Array<KeyObject | string>) =>
      keys.some((k) => {
        try {
          return verify(null, data, typeof k === 'string' ? createPublicKey(k) : k, signature);
        } catch {
          return false;
        }
      });
    const good =
      holds(this.keys) ||
      (!!this.nodeKeys && (holds(await this.nodeKeys(false)) || holds(await this.nodeKeys(true))));
    if (!good) return { ok: false, reason: 'bad signature' };
    // Only a good signature is remembered, so a flood of forged ones cannot push real nonces out.
    this.forgetOld(now);
    if (this.seen.has(nonce)) return { ok: false, reason: 'replayed' };
    this.seen.set(nonce, at + 2 * SKEW_MS);
    return { ok: true };
  }

  private forgetOld(now: number) {
    for (const [nonce, until] of this.seen) {
      if (until > now && this.seen.size < MAX_NONCES) break;
      this.seen.delete(nonce);
    }
  }
}

/** What a handler answers a request whose signature does not hold. */
export class UnsignedRequestError extends Error {
  readonly code = 403;
  constructor(subject: string, reason: string) {
    super(`${signedSubject(subject)} refused: the request must be signed by this node's key (${reason})`);
    this.name = 'UnsignedRequestError';
  }
}
