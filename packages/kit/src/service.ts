import type { EventDefinition, EventEnvelope, ToolErrorBody } from '@lore/schema';
import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ServiceResource } from './apps.js';
import { Authenticator } from './auth.js';
import { nodeLocalBus } from './bus/local.js';
import { EventDrops, type OnOptions, subscribeTyped, type TypedEventHandler } from './bus/typed.js';
import type { EventBus, Subscription } from './bus/types.js';
import { catalogBackend, type ServicePrompt, type ServiceResourceTemplate } from './catalog.js';
import type { LoreConfig } from './config.js';
import type { Database } from './db/index.js';
import { fromZodError, rateLimited, ToolError, toToolError, unauthenticated } from './errors.js';
import { createHttpApp, FORWARDING_ALLOWANCE } from './http-app.js';
import { controlCharacterError } from './input.js';
import { createLogger, type Logger } from './logger.js';
import { type CallInfo, InputRequiredSignal, type McpBackend, unknownTool } from './mcp.js';
import { ServiceMetrics } from './metrics.js';
import type { NetworkDirectory } from './network/directory.js';
import { believeEnvelope } from './network/signing.js';
import type { NodeIdentity } from './node.js';
import type { Outbox } from './outbox.js';
import { RATE_LIMITS, RateLimiter, sharedRateLimitStore } from './rate-limit.js';
import { withSpan } from './telemetry.js';
import type { TextGenerator } from './textgen/types.js';
import { type AnyTool, makeContext } from './tool.js';

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
  db?: Database;
  outbox?: Outbox;
  /** Subscriptions and reply handlers, opened by `start()`. */
  handlers?: Array<(bus: EventBus) => Promise<Subscription>>;
  /** Work after handlers are up (seeding, timers); returns a clean-up. */
  onStart?: () => Promise<(() => Promise<void>) | undefined>;
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
  const bus = nodeLocalBus(deps.bus, deps.nodeId);
  const auth = new Authenticator(bus, deps.config.LORE_AUTH_CACHE_SECONDS * 1000);
  const limiter = deps.config.LORE_RATE_LIMITS ? sharedLimiter(deps.bus) : undefined;
  const backend = toolBackend(opts, { auth, limiter, log, metrics });
  // 2025-11-25 clients get sessions, so a service called directly can still ask their model (sampling).
  const app = createHttpApp({
    backend,
    config: deps.config,
    metrics,
    ready: readiness(opts),
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

interface Runtime {
  auth: Authenticator;
  limiter: RateLimiter | undefined;
  log: Logger;
  metrics: ServiceMetrics;
}

/** JSON Schema for a zod schema as MCP clients expect it (an object, no `$schema`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest as Tool['inputSchema'];
}

export function describeTool(t: AnyTool): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input, 'input'),
    outputSchema: jsonSchema(t.output, 'output'),
    annotations: { title: t.title, ...t.annotations },
    ...(t.meta ? { _meta: t.meta } : {}),
  };
}

/** Where a failed call's machine-readable error travels: the result's `_meta`. */
export const ERROR_META_KEY = 'lore/error';

/**
 * A failed call: the text a model reads, and `{code, message, data}` in `_meta`. Never
 * `structuredContent`: stock clients (SDK v1, the Inspector) check it against the tool's
 * output schema even when `isError` is set, and throw instead of showing the message.
 */
export function errorResult(err: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: `Error ${err.code}: ${err.message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: err.toBody() },
  };
}

/** The `{code, message, data}` of a failed call's result, from `_meta` (undefined when it succeeded). */
export function toolErrorOf(result: {
  isError?: boolean;
  _meta?: Record<string, unknown>;
}): ToolErrorBody | undefined {
  if (!result.isError) return undefined;
  return result._meta?.[ERROR_META_KEY] as ToolErrorBody | undefined;
}

function toolBackend<P>(opts: ServiceOptions<P>, rt: Runtime): McpBackend {
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  const listed = opts.tools.map(describeTool);

  async function call(
    name: string,
    args: Record<string, unknown>,
    info: CallInfo,
  ): Promise<CallToolResult | InputRequiredResult> {
    const tool = byName.get(name);
    if (!tool) throw unknownTool(name);
    const incoming = {
      requestId: info.requestId,
      ...(info.traceparent ? { traceparent: info.traceparent } : {}),
    };
    return withSpan(
      `tools/call ${name}`,
      { 'mcp.tool': name, 'lore.service': opts.name },
      incoming,
      (cc, span) => run(tool, args, info, cc.traceparent, (code) => span.setAttribute('lore.code', code)),
    );
  }

  async function run(
    tool: AnyTool<P>,
    args: Record<string, unknown>,
    info: CallInfo,
    traceparent: string | undefined,
    done: (code: number) => void,
  ): Promise<CallToolResult | InputRequiredResult> {
    const name = tool.name;
    const t0 = performance.now();
    let code = 200;
    try {
      const caller = info.token ? await rt.auth.verify(info.token) : null;
      // A public tool (agent_register) ignores a key it cannot use: it is the way out of a lost or
      // revoked key, so a stale Authorization header must not lock the caller out of it.
      if (!caller && !tool.public)
        throw info.token
          ? unauthenticated('Invalid API key. Check the key, or get a new one with agent_register.')
          : unauthenticated();
      // Input is checked before it counts against a limit: malformed calls must not lock an agent out.
      // The schema speaks first, so a 400 names the same field whatever else is wrong with the call.
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) throw fromZodError(parsed.error, args);
      const control = controlCharacterError(args);
      if (control) throw control;
      const wait = (await rt.limiter?.take(caller?.id ?? `ip:${info.ip ?? 'local'}`, tool.rateClass)) ?? 0;
      if (wait)
        throw rateLimited(
          wait,
          `Rate limit for ${tool.rateClass} calls reached (${RATE_LIMITS[tool.rateClass as 'read']}/min); retry in ${wait} s.`,
        );
      let callLog: Logger | undefined;
      const ctx = makeContext<P>({
        caller,
        ports: opts.ports,
        get log() {
          callLog ??= rt.log.child({
            tool: name,
            requestId: info.requestId,
            ...(traceparent ? { traceparent } : {}),
          });
          return callLog;
        },
        signal: info.signal,
        requestId: info.requestId,
        sampling: info.sampling,
        elicitation: info.elicitation,
        progress: info.progress,
        notify: async (level, data) => info.notify?.(level, data),
      });
      const result = await tool.handler(parsed.data, ctx);
      const out = tool.output.safeParse(result.data);
      if (!out.success) {
        rt.log.error(
          { tool: name, issues: out.error.issues.slice(0, 3) },
          'tool output does not match its schema',
        );
        throw new ToolError(500, 'Internal error: the result did not match its declared shape.');
      }
      return {
        content: [{ type: 'text', text: result.text }, ...(result.content ?? [])],
        structuredContent: out.data as Record<string, unknown>,
      };
    } catch (err) {
      if (err instanceof InputRequiredSignal) throw err;
      const te = toToolError(err);
      code = te.code;
      if (te.code >= 500) rt.log.error({ err, tool: name, requestId: info.requestId }, 'tool failed');
      // The client hears the server's own warning about its call, when it asked for log messages.
      await info.notify?.(te.code >= 500 ? 'error' : 'warning', {
        tool: name,
        requestId: info.requestId,
        ...te.toBody(),
      });
      return errorResult(te);
    } finally {
      done(code);
      rt.metrics.record(name, code, (performance.now() - t0) / 1000);
    }
  }

  return {
    info: { name: `lore-${opts.name}`, version: opts.version, ...(opts.title ? { title: opts.title } : {}) },
    ...(opts.instructions ? { instructions: opts.instructions } : {}),
    listTools: () => listed,
    callTool: call,
    ...catalogBackend(opts),
  };
}

export { createHttpApp, FORWARDING_ALLOWANCE, type HttpAppOptions } from './http-app.js';
