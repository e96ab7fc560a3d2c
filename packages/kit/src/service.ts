import type { EventDefinition, EventEnvelope } from '@lore/schema/events';
import type { Hono } from 'hono';
import type { ServiceResource } from './apps.js';
import { type AgentKeys, Authenticator } from './auth.js';
import { type NodeLocalBus, nodeLocalBus } from './bus/local.js';
import { EventDrops, type OnOptions, subscribeTyped, type TypedEventHandler } from './bus/typed.js';
import type { EventBus, Subscription } from './bus/types.js';
import type { ServicePrompt, ServiceResourceTemplate } from './catalog.js';
import type { LoreConfig } from './config.js';
import type { Database } from './db/index.js';
import { createHttpApp, FORWARDING_ALLOWANCE } from './http-app.js';
import { createLogger, type Logger } from './logger.js';
import type { McpBackend } from './mcp.js';
import { ServiceMetrics } from './metrics.js';
import type { NetworkDirectory } from './network/directory.js';
import { believeEnvelope } from './network/signing.js';
import type { NodeIdentity } from './node.js';
import type { Outbox } from './outbox.js';
import { RATE_LIMITS, RateLimiter, sharedRateLimitStore } from './rate-limit.js';
import type { TextGenerator } from './textgen-port.js';
import type { AnyTool } from './tool.js';
import { toolBackend } from './tool-call.js';

/** What the process hands every service it hosts. */
export interface ServiceDeps {
  config: LoreConfig;
  bus: EventBus;
  /** This deployment's node id: agents registered here are hosted here. */
  nodeId: string;
  log?: Logger;
  textgen?: TextGenerator;
  /** The node's signing keys; envelopes this process produces are signed with them. */
  node?: NodeIdentity;
  /** Network-wide handles and node keys (NATS KV when on NATS, in-process otherwise). */
  directory?: NetworkDirectory;
}

export interface ServiceOptions<P> {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  tools: AnyTool<P>[];
  /** Resources the service serves (its MCP Apps' HTML); the MCP Apps extension is advertised with them. */
  resources?: ServiceResource[];
  /** Resources behind URI templates, and prompts (see catalog.ts; both may offer argument completion). */
  resourceTemplates?: ServiceResourceTemplate[];
  prompts?: ServicePrompt[];
  ports: P;
  deps: ServiceDeps;
  /**
   * Where the service's authentication learns whose a key is: the keys' own service provides
   * them in-process, every other one over the bus (`agentKeysOverBus(UsersAgentKeys)`). Given
   * the service's node-local bus.
   */
  agentKeys: (bus: NodeLocalBus) => AgentKeys;
  db?: Database;
  outbox?: Outbox;
  /** Subscriptions and reply handlers, opened by `start()`. */
  handlers?: Array<(bus: EventBus) => Promise<Subscription>>;
  /** Work after handlers are up (seeding, timers); returns a clean-up. */
  onStart?: () => Promise<(() => Promise<void>) | undefined>;
  /** Facts `/readyz` shows beside its checks without deciding readiness (see `HttpAppOptions.details`). */
  details?: () => Promise<Record<string, string>>;
}

export interface LoreService {
  readonly name: string;
  readonly version: string;
  readonly app: Hono;
  readonly backend: McpBackend;
  readonly metrics: ServiceMetrics;
  readonly tools: AnyTool[];
  readonly log: Logger;
  fetch(request: Request): Promise<Response>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Wires a service: tools behind auth, limits and validation; an MCP endpoint; health and metrics. */
export function createService<P>(opts: ServiceOptions<P>): LoreService {
  const { deps } = opts;
  const log = (deps.log ?? createLogger({ name: 'lore', level: deps.config.LORE_LOG_LEVEL })).child({
    service: opts.name,
  });
  const metrics = new ServiceMetrics(opts.name);
  // Events of this service's typed subscriptions that fail their schema: counted on its /metrics.
  const drops = new EventDrops(metrics.registry, (fields, message) => log.warn(fields, message));
  // Keys and most replies concern data of this node: ask this node's replicas first.
  const bus = nodeLocalBus(deps.bus, deps.nodeId, deps);
  const auth = new Authenticator(opts.agentKeys(bus), deps.config.LORE_AUTH_CACHE_SECONDS * 1000);
  const limiter = deps.config.LORE_RATE_LIMITS ? sharedLimiter(deps.bus) : undefined;
  const backend = toolBackend(opts, { auth, limiter, log, metrics });
  // 2025-11-25 clients get sessions, so a service called directly can still ask their model (sampling).
  const app = createHttpApp({
    backend,
    config: deps.config,
    metrics,
    ready: readiness(opts),
    ...(opts.details ? { details: opts.details } : {}),
    bodyAllowance: FORWARDING_ALLOWANCE,
    legacySessions: {},
    // A session needs a valid key, unless the service has no keys to ask for: when every tool is
    // public, a key proves nothing, and sessions open as they do on any keyless MCP server.
    ...(opts.tools.length && opts.tools.every((t) => t.public)
      ? { openSessions: true }
      : { verifyKey: async (key: string) => (await auth.verify(key).catch(() => null)) !== null }),
  });
  const subs: Subscription[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  let started = false;

  return {
    name: opts.name,
    version: opts.version,
    app,
    backend,
    metrics,
    tools: opts.tools as AnyTool[],
    log,
    fetch: (request) => Promise.resolve(app.fetch(request)),
    async start() {
      if (started) return;
      started = true;
      await auth.start();
      // On NATS anyone with access could publish: every event's signature is checked first.
      const verifier = deps.bus.kind === 'nats' ? deps.directory : undefined;
      const counted = countingBus(bus, metrics, drops, verifier, log);
      for (const h of opts.handlers ?? []) subs.push(await h(counted));
      opts.outbox?.start();
      cleanup = await opts.onStart?.();
    },
    async stop() {
      if (!started) return;
      started = false;
      await cleanup?.();
      await opts.outbox?.stop();
      for (const s of subs.splice(0)) await s.close().catch(() => {});
      await auth.stop();
    },
  };
}

/** The bus handed to a service's handlers: every event delivery is counted by consumer and outcome. */
function countingBus(
  bus: EventBus,
  metrics: ServiceMetrics,
  drops: EventDrops,
  directory: NetworkDirectory | undefined,
  log: Logger,
): EventBus {
  // A dropped envelope is acknowledged (it would fail the same way again), counted and logged.
  const dropped = (event: EventEnvelope, reason: string, detail: string) => {
    metrics.droppedEnvelopes.inc({ service: metrics.service, reason });
    log.warn(
      { eventId: event.id, subject: event.subject, producer: event.producer, reason: detail },
      'event dropped',
    );
  };
  const counted: EventBus = Object.assign(Object.create(bus) as EventBus, {
    drops,
    on: <E extends EventDefinition>(event: E, options: OnOptions, handler: TypedEventHandler<E>) =>
      subscribeTyped(counted, event, options, handler, drops),
    subscribe: (
      options: Parameters<EventBus['subscribe']>[0],
      handler: Parameters<EventBus['subscribe']>[1],
    ) =>
      bus.subscribe(options, async (event, info) => {
        const labels = { service: metrics.service, consumer: options.consumer };
        if (
          directory &&
          !(await believeEnvelope(event, directory, (reason, detail) => dropped(event, reason, detail)))
        )
          return;
        try {
          await handler(event, info);
          metrics.events.inc({ ...labels, result: 'ok' });
        } catch (err) {
          metrics.events.inc({ ...labels, result: 'failed' });
          throw err;
        }
      }),
  });
  return counted;
}

const limiters = new WeakMap<EventBus, RateLimiter>();

/**
 * The limits are per agent, not per service: services that share a bus in one process (the
 * all-in-one) share one limiter, so an agent's reads on users and on dens count together. On
 * NATS the counts live in JetStream KV, shared by every service and replica of the network.
 */
function sharedLimiter(bus: EventBus): RateLimiter {
  let limiter = limiters.get(bus);
  if (!limiter) {
    limiter = new RateLimiter(RATE_LIMITS, 60_000, Date.now, sharedRateLimitStore(bus));
    limiters.set(bus, limiter);
  }
  return limiter;
}

function readiness<P>(opts: ServiceOptions<P>) {
  return async () => {
    const checks: Record<string, string> = {};
    try {
      await opts.db?.$client.execute('select 1');
      checks.database = 'ok';
    } catch (err) {
      checks.database = (err as Error).message;
    }
    try {
      await opts.deps.bus.ping();
      checks.bus = 'ok';
    } catch (err) {
      checks.bus = (err as Error).message;
    }
    return checks;
  };
}

export { createHttpApp, FORWARDING_ALLOWANCE, type HttpAppOptions } from './http-app.js';
