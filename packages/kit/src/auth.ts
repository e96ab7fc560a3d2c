import { createHash, randomBytes } from 'node:crypto';
import type { EventDefinition } from '@lore/schema/events';
import type { VerifiedAgent } from '@lore/schema/identity';
import type { RpcDefinition } from '@lore/schema/rpc';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import { call } from './bus/rpc.js';
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
 * Where authentication learns whose a key is. The service that keeps the keys provides it
 * in-process; every other service gets it over the bus (`agentKeysOverBus`).
 */
export interface AgentKeys {
  /** The agent the key with this SHA-256 hash belongs to, or null when there is none. */
  lookup(keyHash: string): Promise<VerifiedAgent | null>;
  /** Tells `revoked` the hash of every key that stops being valid, from whichever process revoked it. */
  onRevoked(revoked: (keyHash: string) => void): Promise<Subscription>;
}

/** The request and the event behind `AgentKeys` on the bus, as the schema declares them. */
export interface AgentKeysContract {
  lookup: RpcDefinition<string, z.ZodType<{ keyHash: string }>, z.ZodType<{ agent: VerifiedAgent | null }>>;
  revoked: EventDefinition<string, z.ZodType<{ revokedKeyHash: string }>>;
}

/** The listener name of the authenticator's rotation listener (`lore_events_dropped_total{consumer}`). */
export const AUTHENTICATOR_LISTENER = 'kit-authenticator';

/** `AgentKeys` over the bus: the lookup is a request, revocations a broadcast every process hears. */
export const agentKeysOverBus =
  (contract: AgentKeysContract) =>
  (bus: EventBus): AgentKeys => ({
    lookup: async (keyHash) => (await call(bus, contract.lookup, { keyHash }, { timeoutMs: 3000 })).agent,
    onRevoked: (revoked) =>
      bus.listenTo(contract.revoked, AUTHENTICATOR_LISTENER, (p) => revoked(p.revokedKeyHash)),
  });

/**
 * Verifies API keys through `AgentKeys`, caching answers briefly. A revoked key is dropped from
 * the cache as soon as `AgentKeys` reports it.
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
    private readonly keys: AgentKeys,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
    maxKeys = 10_000,
  ) {
    this.cache = new LRUCache({ maxSize: maxKeys, sizeCalculation: () => 1 });
  }

  async start(): Promise<void> {
    this.sub = await this.keys.onRevoked((keyHash) => {
      this.cache.delete(keyHash);
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
    const agent = await this.keys.lookup(hash);
    // Unknown keys are remembered for less time, so a fresh registration is usable at once elsewhere.
    this.cache.set(hash, { agent, expires: t + (agent ? this.ttlMs : 2000) });
    return agent;
  }
}
