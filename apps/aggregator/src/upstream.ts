import { type CallInfo, MCP_APP_MIME, MCP_APPS_EXTENSION, type McpBackend } from '@lore/kit';
import type {
  CallToolResult,
  Client,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  InputRequiredResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  Tool,
} from '@modelcontextprotocol/client';
// The server package exports the same keys; the client is loaded only by an upstream that
// connects to one (distributed mode, stdio), never by the all-in-one's in-process backends.
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import { type ForwardContext, forwardContext, identityFetch } from './context.js';
import { callInProcess } from './in-process-call.js';
import { UpstreamSubscriptions } from './upstream-subscriptions.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface UpstreamOptions {
  name: string;
  /** Streamable HTTP endpoint (also for in-process services, with `fetch`). */
  url?: string;
  /** Or a command speaking MCP over stdio. */
  command?: string[];
  env?: Record<string, string>;
  /** In-process services pass their app's fetch: no sockets. */
  fetch?: Fetch;
  /**
   * Or, for a service in this process, its backend: calls skip the second MCP exchange (client,
   * HTTP semantics, server) and reach the service's auth, validation and tool directly.
   */
  backend?: McpBackend;
  /** Lore's own services (or explicitly trusted externals) get the caller's Authorization. */
  forwardIdentity: boolean;
  /** Whether this is one of Lore's services (its names are never prefixed). */
  lore?: boolean;
  prefix?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Consecutive failed checks before the upstream counts as down. */
  failureThreshold?: number;
  /** How long one health check may take. Default 5 s. */
  checkTimeoutMs?: number;
}

export type UpstreamState = 'connecting' | 'up' | 'down';

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** The caller's capabilities: the upstream may ask for what the caller can give (its model). */
  clientCapabilities?: Record<string, unknown>;
  /** How long this attempt may take (default: the upstream's timeout). */
  timeoutMs?: number;
  /** The aggregator's own call, handed on as is to an in-process backend. */
  info?: CallInfo;
  /** The caller to pass on (identity, request id, trace context); else the forwarding context's. */
  forward?: ForwardContext;
}

/** One MCP server behind the aggregator, reached through the MCP client, watched by health checks. */
export class Upstream {
  readonly name: string;
  tools: Tool[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplateType[] = [];
  /** Protocol extensions the upstream advertises (capabilities.extensions). */
  extensions: Record<string, Record<string, unknown>> = {};
  state: UpstreamState = 'connecting';
  failures = 0;
  lastError: string | undefined;
  lastCheckedAt: number | undefined;
  /** Told of each `notifications/resources/updated` the upstream sends, with its own URI. */
  onResourceUpdated: ((uri: string) => void) | undefined;
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly subscriptions = new UpstreamSubscriptions();

  constructor(readonly opts: UpstreamOptions) {
    this.name = opts.name;
  }

  get up(): boolean {
    return this.state === 'up';
  }

  /** Connect (or reconnect) and read the catalog. */
  async connect(): Promise<void> {
    if (this.opts.backend) return this.refresh();
    this.connecting ??= (async () => {
      await this.client?.close().catch(() => {});
      this.client = undefined;
      const { Client } = await import('@modelcontextprotocol/client');
      const client = new Client(
        { name: 'lore-aggregator', version: '0.1.0' },
        {
          versionNegotiation: { mode: 'auto' },
          // The aggregator serves its upstreams' MCP Apps: it lists their app-only tools too.
          capabilities: { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME] } } },
        },
      );
      // An upstream's log messages about a call reach the caller of that call, whose forwarding
      // context the response stream carrying them runs in, and only as Lore's own warnings do: a
      // 2025-11-25 client hears them at or above the level it set, and none when it set none. The
      // upstream is asked for every level (see call()), so its tool's messages and its warnings
      // about the call arrive alike and cannot be told apart here.
      client.setNotificationHandler('notifications/message', (n) => {
        void forwardContext.getStore()?.notify?.(n.params.level, n.params.data, { ifAsked: true });
      });
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        this.onResourceUpdated?.(n.params.uri);
      });
      await client.connect(await this.transport());
      this.client = client;
      // Subscriptions held before a reconnect are asked for again on the new connection.
      this.subscriptions.renew(client);
      await this.refresh();
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * One health check: reconnect when needed and re-read the catalog. Returns whether the
   * upstream's catalog or state changed.
   */
  async check(): Promise<boolean> {
    const before = this.signature();
    const wasUp = this.state;
    this.lastCheckedAt = Date.now();
    try {
      // A hung upstream must not hold the health loop (and with it every other upstream's check).
      // Starting a connection (a stdio server spawning) may take a while; a check of a live one may not.
      const connected = this.client || this.opts.backend;
      await withTimeout(
        connected ? this.refresh() : this.connect(),
        connected ? (this.opts.checkTimeoutMs ?? 5000) : 30_000,
        `health check of ${this.name}`,
      );
      this.failures = 0;
      this.lastError = undefined;
      this.state = 'up';
    } catch (err) {
      this.failures++;
      this.lastError = (err as Error).message;
      if (this.failures >= (this.opts.failureThreshold ?? 3) || this.state === 'connecting') {
        this.state = 'down';
        // A restarted server may have forgotten our session: start afresh next time.
        await this.client?.close().catch(() => {});
        this.client = undefined;
      }
    }
    return wasUp !== this.state || before !== this.signature();
  }

  async refresh(): Promise<void> {
    const backend = this.opts.backend;
    if (backend) {
      this.tools = backend.listTools();
      this.prompts = backend.listPrompts?.() ?? [];
      this.resources = backend.listResources?.() ?? [];
      this.resourceTemplates = backend.listResourceTemplates?.() ?? [];
      this.extensions = backend.extensions?.() ?? {};
      return;
    }
    const client = this.requireClient();
    this.tools = await this.all((cursor) => client.listTools(cursor ? { cursor } : undefined), 'tools');
    const caps = client.getServerCapabilities();
    this.extensions = (caps?.extensions ?? {}) as Record<string, Record<string, unknown>>;
    this.prompts = caps?.prompts
      ? await this.all((c) => client.listPrompts(c ? { cursor: c } : undefined), 'prompts')
      : [];
    this.resources = caps?.resources
      ? await this.all((c) => client.listResources(c ? { cursor: c } : undefined), 'resources')
      : [];
    this.resourceTemplates = caps?.resources
      ? await this.all<ResourceTemplateType, 'resourceTemplates'>(
          (c) => client.listResourceTemplates(c ? { cursor: c } : undefined),
          'resourceTemplates',
        ).catch(() => [])
      : [];
  }

  /** Whether the upstream completes prompt and template arguments. */
  get completes(): boolean {
    if (this.opts.backend) return !!this.opts.backend.complete;
    return !!this.client?.getServerCapabilities()?.completions;
  }

  async complete(params: CompleteRequestParams, info?: CallInfo): Promise<CompleteResult> {
    const backend = this.opts.backend;
    if (backend?.complete && info) return backend.complete(params, info);
    return this.requireClient().complete(params);
  }

  async subscribe(uri: string, on: boolean, info?: CallInfo): Promise<void> {
    const backend = this.opts.backend;
    if (backend && info) {
      await (on ? backend.subscribeResource : backend.unsubscribeResource)?.call(backend, uri, info);
      return;
    }
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.resources?.subscribe) return;
    await (on ? this.subscriptions.subscribe(client, uri) : this.subscriptions.unsubscribe(client, uri));
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult | InputRequiredResult> {
    const timeout = options.timeoutMs ?? this.opts.timeoutMs ?? 60_000;
    if (this.opts.backend) return callInProcess(this.opts.backend, this.name, name, args, options, timeout);
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.inputResponses) params.inputResponses = options.inputResponses;
    if (options.requestState !== undefined) params.requestState = options.requestState;
    // Every log message about the call is asked for; the caller's own level filters what it hears.
    params._meta = {
      [LOG_LEVEL_META_KEY]: 'debug',
      ...(options.clientCapabilities ? { [CLIENT_CAPABILITIES_META_KEY]: options.clientCapabilities } : {}),
    };
    // The upstream validates its own results; checking them again here would cost time and
    // would refuse an input request (which has no structured content) from a tool with an
    // output schema.
    const known = this.tools.find((t) => t.name === name);
    const { outputSchema: _, ...toolDefinition } = known ?? {
      name,
      inputSchema: { type: 'object' as const },
    };
    return (await this.requireClient().callTool(
      params as { name: string; arguments: Record<string, unknown> },
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress, resetTimeoutOnProgress: true } : {}),
        timeout,
        allowInputRequired: true,
        toolDefinition: toolDefinition as Tool,
      },
    )) as CallToolResult | InputRequiredResult;
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    info?: CallInfo,
  ): Promise<GetPromptResult> {
    const backend = this.opts.backend;
    if (backend?.getPrompt && info) return backend.getPrompt(name, args, info);
    return this.requireClient().getPrompt({ name, ...(args ? { arguments: args } : {}) });
  }

  async readResource(uri: string, info?: CallInfo): Promise<ReadResourceResult> {
    const backend = this.opts.backend;
    if (backend?.readResource && info) return backend.readResource(uri, info);
    return this.requireClient().readResource({ uri });
  }

  async close(): Promise<void> {
    this.subscriptions.clear();
    await this.client?.close().catch(() => {});
    this.client = undefined;
  }

  private async transport() {
    if (this.opts.command) {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      const [command, ...args] = this.opts.command;
      return new StdioClientTransport({
        command: command!,
        args,
        ...(this.opts.env ? { env: this.opts.env } : {}),
        stderr: 'pipe',
      });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const base: Fetch = this.opts.fetch ?? ((u, i) => fetch(u, i));
    return new StreamableHTTPClientTransport(new URL(this.opts.url!), {
      fetch: identityFetch(base, this.opts.forwardIdentity),
      ...(this.opts.headers ? { requestInit: { headers: this.opts.headers } } : {}),
    });
  }

  private async all<T, K extends string>(
    page: (cursor?: string) => Promise<Record<K, T[]> & { nextCursor?: string }>,
    key: K,
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await page(cursor);
      out.push(...r[key]);
      cursor = r.nextCursor;
    } while (cursor && ++pages < 100);
    return out;
  }

  private signature(): string {
    return `${this.state}|${this.tools.map((t) => t.name).join(',')}|${this.prompts.length}|${this.resources.length}`;
  }

  private requireClient(): Client {
    if (!this.client) throw new Error(`upstream ${this.name} is not connected`);
    return this.client;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
