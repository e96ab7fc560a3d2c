import { createLogger, type Lane, type Logger, type LoreConfig, loadNodeIdentity } from '@lore/kit';
import { createBus, type EventBus, NatsInsecureError, natsAccess } from '@lore/kit/bus';
import type { Hono } from 'hono';
import { Aggregator } from './aggregator.js';
import { aggregatorSettings } from './config.js';
import { consoleOverCatalog } from './console/deps.js';
import { createGateway } from './gateway.js';
import { AggregatorMetrics } from './metrics.js';
import { createRelay } from './relay.js';
import { relayLane } from './relay-lane.js';
import { sessionKeyCheck } from './session-keys.js';
import { parseToolsets, type Toolset } from './toolsets.js';
import { Upstream } from './upstream.js';
import { readUpstreams, type UpstreamConfig } from './upstream-config.js';

export interface Distributed {
  aggregator: Aggregator;
  app: Hono;
  /** Relayed tools/calls answered from the socket, past the app (serve it with `serveHttp(app, config, port, lane)`). */
  lane?: Lane;
  log: Logger;
  close(): Promise<void>;
}

export interface DistributedOptions {
  upstreams?: UpstreamConfig[];
  log?: Logger;
  healthIntervalMs?: number;
}

/**
 * How the console reaches the node's NATS: with the aggregator's own credentials (NATS user
 * `aggregator`) or LORE_NATS_INSECURE. Without credentials it runs without NATS, as before
 * (sessions are this replica's, the inbox is re-read on a timer), and says so.
 */
function consoleNatsAccess(config: LoreConfig, log: Logger) {
  if (!config.NATS_URL) return undefined;
  try {
    return natsAccess(config, (m) => log.warn(m));
  } catch (err) {
    if (!(err instanceof NatsInsecureError)) throw err;
    log.warn(
      'NATS_URL is set but the aggregator has no NATS credentials: console sessions stay on this replica and the inbox is polled',
    );
    return undefined;
  }
}

/** The aggregator in front of services that run elsewhere (their URLs from configuration). */
export async function startDistributed(
  config: LoreConfig,
  opts: DistributedOptions = {},
): Promise<Distributed> {
  const log = opts.log ?? createLogger({ name: 'lore-aggregator', level: config.LORE_LOG_LEVEL });
  const settings = aggregatorSettings(config);
  const configs = opts.upstreams ?? readUpstreams(settings);
  const upstreams = configs.map(
    (u) =>
      new Upstream({
        name: u.name,
        ...(u.url ? { url: u.url } : {}),
        ...(u.command ? { command: u.command } : {}),
        ...(u.env ? { env: u.env } : {}),
        ...(u.prefix ? { prefix: u.prefix } : {}),
        ...(u.headers ? { headers: u.headers } : {}),
        forwardIdentity: u.kind === 'lore' || u.forwardAuthorization,
        lore: u.kind === 'lore',
        timeoutMs: u.timeoutMs,
      }),
  );
  const metrics = new AggregatorMetrics();
  const aggregator = new Aggregator(upstreams, {
    log,
    metrics,
    healthIntervalMs: opts.healthIntervalMs ?? settings.LORE_HEALTH_INTERVAL_MS,
    ...(settings.LORE_TOOLSETS ? { toolsets: parseToolsets(settings.LORE_TOOLSETS) as Toolset[] } : {}),
  });
  await aggregator.start();
  const keyCheck = sessionKeyCheck(upstreams);
  const relay = settings.LORE_RELAY ? await createRelay(aggregator) : undefined;
  const node = loadNodeIdentity(config);
  // The node's NATS, when there is one, is the console's: shared sessions and live inbox events.
  let bus: EventBus | undefined;
  const access = consoleNatsAccess(config, log);
  if (access) {
    try {
      bus = await createBus({
        natsUrl: config.NATS_URL,
        ...access,
        name: `lore-aggregator-${node.id}`,
        replicas: config.LORE_NATS_REPLICAS,
        timeoutScale: config.LORE_BUS_TIMEOUT_SCALE,
      });
    } catch (err) {
      await aggregator.stop();
      throw err;
    }
  }
  const consoleParts = await consoleOverCatalog({
    backend: aggregator,
    node,
    config,
    log,
    ...(bus ? { bus } : {}),
  });
  const app = createGateway({
    // The console calls the same upstreams through this catalog; its sessions are sealed with
    // LORE_CONSOLE_SECRET (or this node's key), so replicas that share it and the NATS share sessions.
    console: consoleParts.deps,
    config,
    aggregator,
    metrics,
    ...(keyCheck ? { verifyKey: keyCheck } : {}),
    ...(relay ? { relay } : {}),
    // One bad upstream must not take the endpoint out of rotation: ready while any upstream is up,
    // and connected to the node's NATS when it has one (the console's sessions and inbox events).
    ready: async () => {
      const checks: Record<string, string> = {
        upstreams: upstreams.some((u) => u.up) ? 'ok' : 'no upstream is up',
      };
      if (bus)
        checks.bus = await bus.ping().then(
          () => 'ok',
          (err: Error) => err.message,
        );
      return checks;
    },
  });
  log.info(
    { upstreams: upstreams.map((u) => `${u.name}:${u.state}`) },
    'aggregator started in distributed mode',
  );
  return {
    aggregator,
    app,
    ...(relay
      ? { lane: relayLane({ config, relay: relay.relay, takes: (tool) => !!aggregator.relayRoute(tool) }) }
      : {}),
    log,
    async close() {
      await consoleParts.close();
      await aggregator.stop();
      await relay?.close();
      await bus?.close();
    },
  };
}
