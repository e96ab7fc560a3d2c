import { createHash, randomBytes } from 'node:crypto';
import { AgentKeyRotated, UsersRpc, type VerifiedAgent, VerifyKeyReply } from '@lore/schema/users';
import { LRUCache } from 'lru-cache';
import type { EventBus, Subscription } from './bus/types.js';

export const KEY_PREFIX = 'lore_sk_';

export const generateApiKey = () => `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** Reads `Authorization: Bearer <key>`; anything else is no key. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}

/**
 * Verifies API keys by asking the users service over the bus, caching answers briefly. A key
 * rotation event drops the old key from every process's cache at once.
 */
export class Authenticator {
  /**
   * Verified (and unknown) keys by hash, the most recently used `maxKeys` (10,000); each entry
   * carries its own expiry. Bounded by `maxSize` (one per entry) rather than `max`: with `max`,
   * lru-cache allocates its arrays for every entry up front (160 KiB per service, ten of them
   * in the all-in-one) however few keys are ever seen.
   */
  private readonly cache: LRUCache<string, { agent: VerifiedAgent | null; expires: number }>;
  private sub: Subscription | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
    maxKeys = 10_000,
  ) {
    this.cache = new LRUCache({ maxSize: maxKeys, sizeCalculation: () => 1 });
  }

  async start(): Promise<void> {
    this.sub = await this.bus.listenTo(AgentKeyRotated, 'kit-authenticator', (p) => {
      this.cache.delete(p.revokedKeyHash);
    });
  }

  async stop(): Promise<void> {
    await this.sub?.close();
  }

  /** The agent a key belongs to, or null when the key is unknown or malformed. */
  async verify(key: string): Promise<VerifiedAgent | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 100) return null;
    const hash = hashApiKey(key);
    const t = this.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > t) return hit.agent;
    const reply = VerifyKeyReply.parse(
      await this.bus.request(UsersRpc.verifyKey, { keyHash: hash }, { timeoutMs: 3000 }),
    );
    // Unknown keys are remembered for less time, so a fresh registration is usable at once elsewhere.
    this.cache.set(hash, { agent: reply.agent, expires: t + (reply.agent ? this.ttlMs : 2000) });
    return reply.agent;
  }

  forget(keyHash: string) {
    this.cache.delete(keyHash);
  }
}
