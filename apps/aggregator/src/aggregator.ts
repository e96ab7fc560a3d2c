import { type CallInfo, type Logger, type McpBackend, spansExported, unknownTool, withSpan } from '@lore/kit';
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  InputRequiredResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Tool,
} from '@modelcontextprotocol/server';
import type { ForwardContext } from './context.js';
import { type ForwardSettings, forward, type Route, unavailable } from './forward.js';
import type { AggregatorMetrics } from './metrics.js';
import { assignNames, type NamedTool } from './naming.js';
import { ResourceRouting } from './resource-routing.js';
import { parseToolsets, type Toolset, toolsetOf } from './toolsets.js';
import { withExposedResource } from './ui-resources.js';
import type { Upstream } from './upstream.js';

export type { Route } from './forward.js';

export interface AggregatorOptions {
  log: Logger;
  metrics?: AggregatorMetrics;
  /** How often each upstream is checked. Default 5 s. */
  healthIntervalMs?: number;
  /** Retries for read-only or idempotent tools: attempts and overall deadline. */
  retry?: { attempts: number; deadlineMs: number; baseDelayMs: number };
  /** 2026-07-28 clients re-read tools/list after this long (default: the health interval). */
  listTtlMs?: number;
  /** The toolsets listed to a connection that chooses none (`LORE_TOOLSETS`); default all. */
  toolsets?: readonly Toolset[];
}

/**
 * One catalog over many upstreams: the union of their tools (renamed only where names clash
 * or are invalid), kept in step with their health, with calls forwarded through the MCP client.
 */
/** Told of each finished tool call: its exposed name, who called, and the result. */
export type ResultListener = (name: string, call: CallInfo, result: CallToolResult) => void;

export class Aggregator implements McpBackend {
  readonly info = { name: 'lore', version: '0.1.0', title: 'Lore' };
  readonly instructions =
    'Lore is a knowledge network for agents. Register with agent_register (no key needed) and send the returned key as ' +
    '`Authorization: Bearer <key>`. Ask peers with cqAskQuestion, keep knowledge with updateKnowledgeSources, and join the community with den_list and den_post.';
  readonly listTtlMs: number;
  /** Lore's tools by toolset (another MCP server's tools are listed whatever a connection chose). */
  readonly toolsets: NonNullable<McpBackend['toolsets']>;
  private tools: Tool[] = [];
  private routes = new Map<string, Route>();
  /** Tools of upstreams that are down: answered with a quick 503 instead of "unknown tool". */
  private parked = new Map<string, Upstream>();
  private readonly exposedBy = new Map<string, string[]>();
  /** Prompts, resources, templates, completion and subscriptions. */
  private readonly resourceRouting = new ResourceRouting();
  private readonly listeners = new Set<() => void>();
  private readonly resultListeners = new Set<ResultListener>();
  /** Tools whose results a listener reads (they are never relayed), and listeners of every tool. */
  private readonly watched = new Map<string, number>();
  private watchAll = 0;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  /** The policy of every forwarded call, whichever way it travels (forward.ts, relay.ts). */
  readonly forwarding: ForwardSettings;

  constructor(
    readonly upstreams: Upstream[],
    private readonly opts: AggregatorOptions,
  ) {
    this.forwarding = {
      log: opts.log,
      debug: opts.log.isLevelEnabled('debug'),
      metrics: opts.metrics,
      retry: opts.retry ?? { attempts: 3, deadlineMs: 10_000, baseDelayMs: 100 },
      healthIntervalMs: opts.healthIntervalMs ?? 5000,
    };
    // An upstream's resource update reaches the clients under the URI they subscribed to.
    for (const u of upstreams) u.onResourceUpdated = (uri) => this.resourceRouting.updated(u, uri);
    // A 2026-07-28 client learns of catalog changes by re-reading the list: as often as health can change.
    this.listTtlMs = opts.listTtlMs ?? opts.healthIntervalMs ?? 5000;
    this.toolsets = {
      of: (tool) => {
        const r = this.routes.get(tool);
        return r?.upstream.opts.lore ? toolsetOf(r.original, r.upstream.name) : undefined;
      },
      parse: parseToolsets,
      ...(opts.toolsets ? { default: opts.toolsets } : {}),
    };
    this.rebuild();
  }

  /** Connect every upstream (a failing one is left down and retried by the health loop). */
  async start(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => u.check()));
    for (const u of this.upstreams) {
      this.opts.metrics?.setUp(u.name, u.up);
      if (!u.up) this.opts.log.warn({ upstream: u.name, err: u.lastError }, 'upstream unavailable at start');
    }
    this.rebuild();
    const interval = this.opts.healthIntervalMs ?? 5000;
    // Each upstream has its own loop: a slow or hung check of one never delays another's.
    for (const u of this.upstreams) {
      const loop = async () => {
        if (this.stopped) return;
        if (await this.checkOne(u)) this.changed();
        if (this.stopped) return;
        const t = setTimeout(loop, interval);
        t.unref();
        this.timers.set(u.name, t);
      };
      const t = setTimeout(loop, interval);
      t.unref();
      this.timers.set(u.name, t);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    await Promise.all(this.upstreams.map((u) => u.close()));
  }

  private changed() {
    this.rebuild();
    for (const l of this.listeners) l();
  }

  private async checkOne(u: Upstream): Promise<boolean> {
    const was = u.state;
    const c = await u.check();
    this.opts.metrics?.setUp(u.name, u.up);
    if (was !== u.state) {
      if (u.up) this.opts.log.info({ upstream: u.name }, 'upstream is back; its tools return');
      else if (u.state === 'down')
        this.opts.log.warn(
          { upstream: u.name, err: u.lastError },
          'upstream is down; its tools leave the catalog',
        );
    }
    return c;
  }

  /** Check every upstream now; rebuild and tell clients when anything changed. */
  async checkAll(): Promise<void> {
    const changed = await Promise.all(this.upstreams.map((u) => this.checkOne(u)));
    if (changed.some(Boolean)) this.changed();
  }

  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Recompute names and routes from the upstreams that are up. */
  rebuild(): void {
    const live = this.upstreams.filter((u) => u.up);
    const names = assignNames(
      live.map((u) => ({ name: u.name, prefix: u.opts.prefix, tools: u.tools.map((t) => t.name) })),
      (tool, upstream, exposed) =>
        this.opts.log.warn(
          { tool, upstream, exposed },
          'tool name taken by an earlier upstream; exposed with a prefix',
        ),
    );
    const byKey = new Map(
      live.flatMap((u) => u.tools.map((t) => [`${u.name}\u0000${t.name}`, { u, t }] as const)),
    );
    const exposedUris = this.resourceRouting.rebuild(live);
    const routes = new Map<string, Route>();
    const tools: Tool[] = [];
    for (const n of names) {
      const hit = byKey.get(`${n.upstream}\u0000${n.original}`)!;
      const a = hit.t.annotations;
      routes.set(n.exposed, {
        upstream: hit.u,
        original: n.original,
        retryable: !!(a?.readOnlyHint || a?.idempotentHint),
        readOnly: !!a?.readOnlyHint,
      });
      const t = withExposedResource(hit.t, exposedUris.get(hit.u.name) ?? new Map());
      tools.push(n.exposed === n.original ? t : { ...t, name: n.exposed });
    }
    // Remember the names each live upstream was served under, so a call to one of them while
    // the upstream is down gets a quick 503 rather than "unknown tool".
    for (const u of live)
      this.exposedBy.set(
        u.name,
        names.filter((n) => n.upstream === u.name).map((n) => n.exposed),
      );
    const parked = new Map<string, Upstream>();
    for (const u of this.upstreams)
      if (!u.up)
        for (const name of this.exposedBy.get(u.name) ?? u.tools.map((t) => t.name))
          if (!routes.has(name)) parked.set(name, u);
    this.routes = routes;
    this.parked = parked;
    this.tools = tools;
  }

  /** Protocol extensions to advertise: every one a live upstream advertises (MCP Apps). */
  extensions(): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const u of this.upstreams) if (u.up) Object.assign(out, u.extensions);
    return out;
  }

  /**
   * Where a tools/call may be relayed as it is (see relay.ts): a live Lore service reached over
   * HTTP, for a tool whose results nobody in this process listens to. Undefined means the full exchange.
   */
  relayRoute(tool: string): Readonly<Route> | undefined {
    const r = this.routes.get(tool);
    if (!r || this.watchAll || this.watched.get(tool) || !r.upstream.up) return undefined;
    const o = r.upstream.opts;
    return o.lore && o.url && !o.backend && !o.command ? r : undefined;
  }

  /** The tool result that says an upstream is unavailable (a 503 the client may retry). */
  unavailableResult(upstream: Upstream, tool: string, reason?: string): CallToolResult {
    return unavailable(this.forwarding.healthIntervalMs, upstream, tool, reason);
  }

  /** Which upstream serves an exposed tool name, and under which name. */
  resolve(tool: string): NamedTool | undefined {
    const r = this.routes.get(tool);
    return r ? { exposed: tool, upstream: r.upstream.name, original: r.original } : undefined;
  }

  owner(tool: string): string | undefined {
    return this.routes.get(tool)?.upstream.name;
  }

  listTools(): Tool[] {
    return this.tools;
  }

  listPrompts(): Prompt[] {
    return this.resourceRouting.listPrompts();
  }

  listResources(): Resource[] {
    return this.resourceRouting.listResources();
  }

  listResourceTemplates(): ResourceTemplateType[] {
    return this.resourceRouting.listTemplates();
  }

  complete(params: CompleteRequestParams, call: CallInfo): Promise<CompleteResult> {
    return this.resourceRouting.complete(params, call);
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    call: CallInfo,
  ): Promise<GetPromptResult> {
    return this.resourceRouting.getPrompt(name, args, call);
  }

  readResource(uri: string, call: CallInfo): Promise<ReadResourceResult> {
    return this.resourceRouting.readResource(uri, call);
  }

  subscribeResource(uri: string, call: CallInfo): Promise<void> {
    return this.resourceRouting.subscription(uri, true, call);
  }

  unsubscribeResource(uri: string, call: CallInfo): Promise<void> {
    return this.resourceRouting.subscription(uri, false, call);
  }

  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.resourceRouting.onUpdated(listener);
  }

  /**
   * Hear every finished call, or the calls of the named tools only (the `lore` command keeps the
   * owner's rotated key this way). Listened-to tools take the full exchange in distributed mode.
   */
  onResult(listener: ResultListener, tools?: readonly string[]): () => void {
    this.resultListeners.add(listener);
    if (tools) for (const t of tools) this.watched.set(t, (this.watched.get(t) ?? 0) + 1);
    else this.watchAll++;
    return () => {
      if (!this.resultListeners.delete(listener)) return;
      if (tools) for (const t of tools) this.watched.set(t, (this.watched.get(t) ?? 1) - 1);
      else this.watchAll--;
    };
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    call: CallInfo,
  ): Promise<CallToolResult | InputRequiredResult> {
    const result = await this.route(name, args, call);
    if (this.resultListeners.size && !('inputRequests' in result))
      for (const l of this.resultListeners) l(name, call, result as CallToolResult);
    return result;
  }

  private async route(
    name: string,
    args: Record<string, unknown>,
    call: CallInfo,
  ): Promise<CallToolResult | InputRequiredResult> {
    const route = this.routes.get(name);
    if (!route) {
      const down = this.parked.get(name);
      if (down) return this.unavailableResult(down, name);
      throw unknownTool(name);
    }
    const forwarded = (traceparent: string | undefined) => {
      const ctx: ForwardContext = { token: call.token, requestId: call.requestId };
      if (call.ip) ctx.ip = call.ip;
      if (traceparent) ctx.traceparent = traceparent;
      if (call.notify) ctx.notify = call.notify;
      return forward(this.forwarding, name, route, args, call, ctx);
    };
    // In process, with no span recorded, the hop has no span of its own: the service's span,
    // a child of the caller's, is the call's (its trace id is the caller's all the same).
    if (route.upstream.opts.backend && !spansExported()) return forwarded(call.traceparent);
    const incoming = {
      requestId: call.requestId,
      ...(call.traceparent ? { traceparent: call.traceparent } : {}),
    };
    return withSpan(
      `forward ${name}`,
      { 'mcp.tool': name, 'lore.upstream': route.upstream.name },
      incoming,
      (cc) => forwarded(cc.traceparent),
    );
  }
}
