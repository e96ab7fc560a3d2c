import {
  Authenticator,
  agentKeysOverBus,
  hashApiKey,
  type Logger,
  type LoreConfig,
  type McpBackend,
  type NetworkDirectory,
  type NodeIdentity,
} from '@lore/kit';
import { type EventBus, type NatsBus, nodeLocalBus } from '@lore/kit/bus';
import { AgentKeyRotated } from '@lore/schema';
import { UsersAgentKeys } from '@lore/schema/users';
import { LRUCache } from 'lru-cache';
import { aggregatorSettings } from '../config.js';
import { ConsoleToolError, callAs } from './call.js';
import type { ConsoleDeps } from './context.js';
import { LiveHints } from './live.js';
import { consoleSecret, KvSessions, MemorySessions, SessionStore } from './session.js';

const LOCAL = ['localhost', '127.0.0.1', '[::1]'];

/** The hosts an Origin may name: exactly those `serveHttp` accepts as Host. */
export function consoleHosts(
  config: Pick<LoreConfig, 'LORE_HOST' | 'LORE_ALLOWED_HOSTS'>,
): string[] | undefined {
  const allowed = config.LORE_ALLOWED_HOSTS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return allowed ?? (LOCAL.includes(config.LORE_HOST) ? LOCAL : undefined);
}

/**
 * Where sessions live: on NATS, a KV bucket every replica shares (sign-out on one is sign-out on
 * all; a restarted replica keeps them); otherwise this process's memory.
 */
export function sessionStore(
  config: LoreConfig,
  node: NodeIdentity,
  bus: EventBus | undefined,
): SessionStore {
  const backend =
    bus?.kind === 'nats'
      ? new KvSessions((bus as NatsBus).connection, (bus as NatsBus).replicas)
      : new MemorySessions();
  return new SessionStore(
    consoleSecret(aggregatorSettings(config).LORE_CONSOLE_SECRET, node.privateKey),
    backend,
  );
}

/**
 * What the console needs from a process that has the bus: keys verified the way every service
 * verifies them (the users service over the bus, cached briefly, dropped on rotation), and the
 * bus's query events as hints that an inbox changed.
 */
export async function consoleOnBus(opts: {
  bus: EventBus;
  node: NodeIdentity;
  /** The node's other processes' keys, which may sign its requests too. */
  directory?: NetworkDirectory;
  config: LoreConfig;
  log: Logger;
}): Promise<{ deps: Omit<ConsoleDeps, 'backend' | 'catalog'>; close(): Promise<void> }> {
  const auth = new Authenticator(
    agentKeysOverBus(UsersAgentKeys)(
      nodeLocalBus(opts.bus, opts.node.id, { node: opts.node, directory: opts.directory }),
    ),
    opts.config.LORE_AUTH_CACHE_SECONDS * 1000,
  );
  await auth.start();
  const hints = new LiveHints();
  await hints.listen(opts.bus);
  return {
    deps: {
      sessions: sessionStore(opts.config, opts.node, opts.bus),
      allowedHosts: consoleHosts(opts.config),
      verify: (key) => auth.verify(key),
      hints,
      log: opts.log.child({ component: 'console' }),
    },
    async close() {
      await hints.close();
      await auth.stop();
    },
  };
}

/**
 * The console of an aggregator in front of services elsewhere (distributed mode). A key is
 * verified by the users service through the catalog itself (`agent_update` with nothing to
 * change answers with the caller's own profile, or 401 for a key that is not valid), cached as
 * briefly as the services cache it. With the node's NATS (`bus`), sessions are shared by every
 * replica, the inbox updates on the bus's query events, and a key rotation drops the cached
 * verdict at once (so the rotated key's sessions end on their next request); without it, sessions
 * are this replica's own and the inbox is re-read on a timer.
 */
export async function consoleOverCatalog(opts: {
  backend: McpBackend;
  node: NodeIdentity;
  config: LoreConfig;
  log: Logger;
  bus?: EventBus;
}): Promise<{ deps: Omit<ConsoleDeps, 'backend' | 'catalog'>; close(): Promise<void> }> {
  const ttl = opts.config.LORE_AUTH_CACHE_SECONDS * 1000;
  // Verdicts by key hash for the services' cache time (LORE_AUTH_CACHE_SECONDS; 0 caches nothing).
  const cache = new LRUCache<string, { agent: { id: string; handle: string; node: string } | null }>({
    max: 1000,
    ttl: Math.max(1, ttl),
  });
  const hints = new LiveHints();
  await hints.listen(opts.bus);
  const rotated = await opts.bus?.listenTo(AgentKeyRotated, 'aggregator-console-keys', (p) => {
    cache.delete(p.revokedKeyHash);
  });
  const sessions = sessionStore(opts.config, opts.node, opts.bus);
  return {
    deps: {
      sessions,
      allowedHosts: consoleHosts(opts.config),
      hints,
      log: opts.log.child({ component: 'console' }),
      async verify(key) {
        const id = hashApiKey(key);
        const hit = cache.get(id);
        if (hit) return hit.agent;
        let agent: { id: string; handle: string; node: string } | null;
        try {
          const r = await callAs<{ agent: { id: string; username: string; node: string } }>(
            opts.backend,
            key,
            'agent_update',
            {},
            AbortSignal.timeout(15_000),
          );
          agent = { id: r.data.agent.id, handle: r.data.agent.username, node: r.data.agent.node };
        } catch (err) {
          // Only the users service saying no is an answer; an outage is not a verdict on the key.
          if (err instanceof ConsoleToolError && err.code === 401) agent = null;
          else throw err;
        }
        cache.set(id, { agent });
        return agent;
      },
    },
    async close() {
      await rotated?.close().catch(() => {});
      await hints.close();
      await sessions.close();
    },
  };
}
