import { mkdirSync } from 'node:fs';
import {
  Authenticator,
  agentKeysOverBus,
  createDirectory,
  createLogger,
  directoryTrust,
  type Logger,
  type LoreConfig,
  type LoreService,
  loadNodeIdentity,
  type NetworkDirectory,
  type NetworkLink,
  registerNodeKey,
  stopWithin,
} from '@lore/kit';
import { createBus, type EventBus, natsAccess, nodeLocalBus } from '@lore/kit/bus';
import { UsersAgentKeys } from '@lore/schema/users';
import type { Hono } from 'hono';
import { Aggregator } from './aggregator.js';
import { aggregatorSettings } from './config.js';
import { consoleOnBus } from './console/deps.js';
import { createGateway } from './gateway.js';
import { AggregatorMetrics } from './metrics.js';
import { startNetworkLink } from './network-link.js';
import { SERVICES, type ServiceEntry } from './services.js';
import { parseToolsets, type Toolset } from './toolsets.js';
import { Upstream } from './upstream.js';

export interface AllInOne {
  nodeId: string;
  bus: EventBus;
  directory: NetworkDirectory;
  services: LoreService[];
  aggregator: Aggregator;
  app: Hono;
  log: Logger;
  /** The link to a network of several operators, when LORE_NETWORK_NATS_URL is set. */
  network: NetworkLink | undefined;
  /** The handle of the agent an API key belongs to (null: no agent of the network holds it). */
  agentOf(key: string): Promise<string | null>;
  close(): Promise<void>;
}

export interface AllInOneOptions {
  services?: ServiceEntry[];
  bus?: EventBus;
  directory?: NetworkDirectory;
  log?: Logger;
}

/**
 * Every service in one process, each with its own database, over one bus; the aggregator
 * calls each service's backend directly (its auth, limits, validation and tools), without a
 * second MCP exchange inside the process.
 */
export async function startAllInOne(config: LoreConfig, opts: AllInOneOptions = {}): Promise<AllInOne> {
  mkdirSync(config.LORE_DATA_DIR, { recursive: true });
  const log = opts.log ?? createLogger({ name: 'lore', level: config.LORE_LOG_LEVEL });
  const node = loadNodeIdentity(config);
  const bus =
    opts.bus ??
    (await createBus({
      natsUrl: config.NATS_URL,
      ...natsAccess(config, (m) => log.warn(m)),
      name: `lore-${node.id}`,
      replicas: config.LORE_NATS_REPLICAS,
      timeoutScale: config.LORE_BUS_TIMEOUT_SCALE,
      onError: (err, event, consumer) =>
        log.warn({ err: (err as Error).message, subject: event?.subject, consumer }, 'event handler failed'),
    }));
  const directory = opts.directory ?? (await createDirectory(bus, directoryTrust(config, log, node)));
  await registerNodeKey(directory, node, log);
  const services: LoreService[] = [];
  for (const entry of opts.services ?? SERVICES) {
    services.push(await entry.create({ config, bus, nodeId: node.id, node, directory, log }));
  }
  for (const s of services) await s.start();
  const network = config.LORE_NETWORK_NATS_URL
    ? await startNetworkLink(config, { bus, directory, node, log })
    : undefined;
  const upstreams = services.map(
    (s) => new Upstream({ name: s.name, backend: s.backend, forwardIdentity: true, lore: true }),
  );
  const metrics = new AggregatorMetrics();
  const toolsets = aggregatorSettings(config).LORE_TOOLSETS;
  const aggregator = new Aggregator(upstreams, {
    log,
    metrics,
    ...(toolsets ? { toolsets: parseToolsets(toolsets) as Toolset[] } : {}),
  });
  await aggregator.start();
  const consoleParts = await consoleOnBus({ bus, node, directory, config, log });
  // Keys are checked on this process's bus, as every hosted service checks them.
  const keys = new Authenticator(
    agentKeysOverBus(UsersAgentKeys)(nodeLocalBus(bus, node.id, { node, directory })),
    config.LORE_AUTH_CACHE_SECONDS * 1000,
  );
  await keys.start();
  const app = createGateway({
    console: consoleParts.deps,
    config,
    verifyKey: async (key) => (await keys.verify(key).catch(() => null)) !== null,
    aggregator,
    metrics,
    registries: services.map((s) => s.metrics.registry),
    ready: async () => {
      const checks: Record<string, string> = {};
      for (const s of services) {
        const r = await s.fetch(new Request('http://local/readyz'));
        checks[s.name] = r.ok ? 'ok' : 'not ready';
      }
      return checks;
    },
    // Each service's details (the knowledge service's embedding model), named by service.
    details: async () => {
      const details: Record<string, string> = {};
      for (const s of services) {
        const r = (await (await s.fetch(new Request('http://local/readyz'))).json()) as {
          details?: Record<string, string>;
        };
        for (const [k, v] of Object.entries(r.details ?? {})) details[`${s.name}.${k}`] = v;
      }
      return details;
    },
  });
  log.info({ node: node.id, bus: bus.kind, services: services.map((s) => s.name) }, 'all-in-one started');
  return {
    nodeId: node.id,
    bus,
    directory,
    services,
    aggregator,
    app,
    log,
    network,
    agentOf: async (key) => (await keys.verify(key).catch(() => null))?.handle ?? null,
    async close() {
      // Bounded: with the NATS server gone, the services' subscriptions would drain forever.
      await stopWithin(async () => {
        await network?.close();
        await consoleParts.close();
        await aggregator.stop();
        await keys.stop();
        for (const s of [...services].reverse()) await s.stop();
      }, log);
      if (!opts.bus) await bus.close();
    },
  };
}
