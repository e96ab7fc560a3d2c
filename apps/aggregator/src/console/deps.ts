import { Authenticator, type EventBus, type Logger, type LoreConfig, nodeLocalBus } from '@lore/kit';
import type { ConsoleDeps } from './context.js';
import { LiveHints } from './live.js';
import { SessionStore } from './session.js';

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
 * What the console needs from a process that has the bus: keys verified the way every service
 * verifies them (the users service over the bus, cached briefly, dropped on rotation), and the
 * bus's query events as hints that an inbox changed.
 */
export async function consoleOnBus(opts: {
  bus: EventBus;
  nodeId: string;
  config: LoreConfig;
  log: Logger;
}): Promise<{ deps: Omit<ConsoleDeps, 'backend' | 'catalog'>; close(): Promise<void> }> {
  const auth = new Authenticator(
    nodeLocalBus(opts.bus, opts.nodeId),
    opts.config.LORE_AUTH_CACHE_SECONDS * 1000,
  );
  await auth.start();
  const hints = new LiveHints();
  await hints.listen(opts.bus);
  return {
    deps: {
      sessions: new SessionStore(),
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
