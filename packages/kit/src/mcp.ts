import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type CompleteRequestParams,
  type CompleteResult,
  type ElicitInputParams,
  type GetPromptResult,
  type InputRequiredResult,
  type McpServerFactory,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { MCP_APPS_EXTENSION } from './apps.js';
import { elicitationPort, InputRequiredSignal, progressReporter, samplingPort } from './mcp-input.js';
import { clientLogging, type Notify } from './mcp-logging.js';
import { type EdgeFields, edgeFields } from './pipeline.js';
import type { SamplingPort } from './textgen-port.js';

/** Everything about one tools/call that is not the arguments. */
export interface CallInfo extends EdgeFields {
  /** The bearer token the client sent, if any. */
  token: string | null;
  era: 'legacy' | 'modern';
  requestId: string;
  signal: AbortSignal;
  /** The calling client's model, when it offers sampling in this era. */
  sampling: SamplingPort | undefined;
  /** Responses to input requests from an earlier round (multi-round-trip). */
  inputResponses?: Record<string, unknown>;
  /** The opaque state an earlier round's input request carried, echoed back by the client. */
  requestState?: string;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Request `_meta` as the client sent it (progress token, trace context). */
  meta?: Record<string, unknown>;
  /** What the calling client declared it can do (sampling, elicitation…), in either era. */
  clientCapabilities?: Record<string, unknown>;
  /** Asks the calling client's user for input, when the client offers elicitation in this era. */
  elicitation?: ElicitationPort | undefined;
  /**
   * Tells this client something the server logged about its call (`notifications/message`),
   * filtered by the level it chose with `logging/setLevel`. Without a level, `ifAsked` messages
   * (Lore's own warnings about a call) are not sent; others are, as the reference servers do.
   */
  notify?: Notify;
}

/** The answer of the client's user to an elicitation: accepted (with content), declined or cancelled. */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** Asks the user behind the calling client for structured input (`elicitation/create`). */
export interface ElicitationPort {
  elicit(params: ElicitInputParams): Promise<ElicitationAnswer>;
}

/** What an MCP endpoint serves: a service's own tools, or the aggregator's union. */
export interface McpBackend {
  info: { name: string; version: string; title?: string };
  instructions?: string;
  listTools(): Tool[];
  /** A tool result, or a request for input from the client (its model) before the call can finish. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    call: CallInfo,
  ): Promise<CallToolResult | InputRequiredResult>;
  /** Prompts and resources, when the backend has any (the aggregator proxies its upstreams'). */
  listPrompts?(): Prompt[];
  getPrompt?(
    name: string,
    args: Record<string, string> | undefined,
    call: CallInfo,
  ): Promise<GetPromptResult>;
  listResources?(): Resource[];
  readResource?(uri: string, call: CallInfo): Promise<ReadResourceResult>;
  /** Resource templates (`resources/templates/list`); their URIs are read through readResource. */
  listResourceTemplates?(): ResourceTemplate[];
  /** Accepts a client's interest in one resource (`resources/subscribe`); throws for an unknown URI. */
  subscribeResource?(uri: string, call: CallInfo): Promise<void>;
  unsubscribeResource?(uri: string, call: CallInfo): Promise<void>;
  /** Suggested values for a prompt's or a resource template's argument (`completion/complete`). */
  complete?(params: CompleteRequestParams, call: CallInfo): Promise<CompleteResult>;
  /** Protocol extensions the backend serves (MCP Apps), advertised under `capabilities.extensions`. */
  extensions?(): Record<string, Record<string, unknown>>;
  /** How long 2026-07-28 clients may cache tools/list (their way of noticing catalog changes). */
  listTtlMs?: number;
  /**
   * Toolsets: the group a tool belongs to (undefined: listed whatever the choice), and what a
   * connection asks for (`?toolsets=` on the endpoint's URL or the `X-Lore-Toolsets` header),
   * parsed, or an error naming the unknown one. Without either, every tool is listed.
   */
  toolsets?: {
    of(tool: string): string | undefined;
    parse(value: string): readonly string[] | { error: string };
    /** Listed when a connection chooses none (the node's `LORE_TOOLSETS`); undefined: all. */
    default?: readonly string[];
  };
  /** Called when the tool list may have changed, to tell session clients. */
  onToolsChanged?(listener: () => void): () => void;
  /**
   * Called when a resource a client may have subscribed to changed (`notifications/resources/updated`):
   * the endpoint tells the 2025-11-25 sessions that subscribed to it and the 2026-07-28 listeners.
   */
  onResourceUpdated?(listener: (uri: string) => void): () => void;
}

/**
 * The resource URIs each server instance's client subscribed to (one instance per 2025-11-25
 * session; a stateless request's instance lives for that request), with the call that did it.
 */
const subscriptions = new WeakMap<Server, Map<string, CallInfo>>();

/** Whether the client of a session's server instance subscribed to a resource. */
export function subscribedTo(server: Server, uri: string): boolean {
  return subscriptions.get(server)?.has(uri) ?? false;
}

/**
 * Remembers a client's subscription on its server instance. When the instance closes (the
 * session ends or expires, or a stateless request is answered, where no update could ever reach
 * the client) its subscriptions are released, so what they hold upstream never outlives them.
 */
function remember(server: Server, backend: McpBackend, uri: string, call: CallInfo): void {
  let mine = subscriptions.get(server);
  if (!mine) {
    const held = new Map<string, CallInfo>();
    subscriptions.set(server, held);
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      for (const [u, c] of held) void backend.unsubscribeResource?.(u, c).catch(() => {});
      held.clear();
    };
    mine = held;
  }
  mine.set(uri, call);
}

export { ELICITATION_KEY, InputRequiredSignal, SAMPLING_KEY } from './mcp-input.js';

export interface AuthExtra extends EdgeFields {
  requestId?: string;
}

/**
 * One server instance per exchange (that is what the stateless 2026-07-28 protocol and the
 * stateless 2025 fallback both need), so construction must stay cheap: the tool list is
 * built once by the backend and handed over as is.
 */
export function createMcpFactory(backend: McpBackend): McpServerFactory {
  return ({ era, authInfo: factoryAuth }) => {
    const prompts = !!backend.listPrompts;
    const resources = !!backend.listResources;
    const extensions = backend.extensions?.() ?? {};
    const server = new Server(backend.info, {
      capabilities: {
        tools: { listChanged: true },
        // Deprecated in 2026-07-28 but still what 2025-11-25 clients (and the Inspector) use to
        // see a server's warnings about their calls.
        logging: {},
        ...(prompts ? { prompts: { listChanged: true } } : {}),
        ...(resources
          ? { resources: { listChanged: true, ...(backend.subscribeResource ? { subscribe: true } : {}) } }
          : {}),
        ...(backend.complete ? { completions: {} } : {}),
        // Extension settings are plain JSON (what the SDK's JSONObject type spells out).
        ...(Object.keys(extensions).length ? { extensions: extensions as Record<string, never> } : {}),
      },
      ...(backend.instructions ? { instructions: backend.instructions } : {}),
      ...(backend.listTtlMs !== undefined
        ? { cacheHints: { 'tools/list': { ttlMs: backend.listTtlMs } } }
        : {}),
    });
    const notifier = clientLogging(server, era, backend.info.name);
    const callInfo = (ctx: ServerContext): CallInfo => {
      // Sessions (2025-11-25) carry each request's own credentials; stateless requests the factory's.
      const authInfo = ctx.http?.authInfo ?? factoryAuth;
      const extra = (authInfo?.extra ?? {}) as AuthExtra;
      const state = ctx.mcpReq.requestState<string>();
      const caps = server.getClientCapabilities();
      return edgeFields(
        {
          token: authInfo?.token || null,
          era,
          requestId: extra.requestId ?? randomUUID(),
          signal: ctx.mcpReq.signal,
          sampling: samplingPort(server, ctx),
          elicitation: elicitationPort(server, ctx),
          progress: progressReporter(ctx),
          notify: notifier(ctx),
          ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
          ...(typeof state === 'string' ? { requestState: state } : {}),
          ...(ctx.mcpReq._meta ? { meta: ctx.mcpReq._meta as Record<string, unknown> } : {}),
          ...(caps ? { clientCapabilities: caps as Record<string, unknown> } : {}),
        },
        extra,
      );
    };
    server.setRequestHandler('tools/list', async (req, ctx) =>
      paginate(visibleTools(backend, server, ctx), req.params?.cursor, 'tools'),
    );
    server.setRequestHandler('tools/call', async (req, ctx) => {
      try {
        return await backend.callTool(
          req.params.name,
          (req.params.arguments ?? {}) as Record<string, unknown>,
          callInfo(ctx),
        );
      } catch (err) {
        if (err instanceof InputRequiredSignal) return err.result();
        throw err;
      }
    });
    if (prompts) {
      server.setRequestHandler('prompts/list', async (req) =>
        paginate(backend.listPrompts!(), req.params?.cursor, 'prompts'),
      );
      server.setRequestHandler('prompts/get', async (req, ctx) =>
        backend.getPrompt!(req.params.name, req.params.arguments, callInfo(ctx)),
      );
    }
    if (resources) {
      server.setRequestHandler('resources/list', async (req) =>
        paginate(backend.listResources!(), req.params?.cursor, 'resources'),
      );
      server.setRequestHandler('resources/read', async (req, ctx) =>
        backend.readResource!(req.params.uri, callInfo(ctx)),
      );
      server.setRequestHandler('resources/templates/list', async (req) =>
        paginate(backend.listResourceTemplates?.() ?? [], req.params?.cursor, 'resourceTemplates'),
      );
      if (backend.subscribeResource) {
        server.setRequestHandler('resources/subscribe', async (req, ctx) => {
          const call = callInfo(ctx);
          // A second subscription to the same resource by the same client changes nothing.
          if (subscribedTo(server, req.params.uri)) return {};
          await backend.subscribeResource!(req.params.uri, call);
          remember(server, backend, req.params.uri, call);
          return {};
        });
        server.setRequestHandler('resources/unsubscribe', async (req, ctx) => {
          // Only what this client holds is released: never another client's share of it.
          if (!subscriptions.get(server)?.delete(req.params.uri)) return {};
          await backend.unsubscribeResource?.(req.params.uri, callInfo(ctx));
          return {};
        });
      }
    }
    if (backend.complete)
      server.setRequestHandler('completion/complete', async (req, ctx) =>
        backend.complete!(req.params, callInfo(ctx)),
      );
    return server;
  };
}

/** The header a client sets to choose its toolsets, when it cannot change the endpoint's URL. */
export const TOOLSETS_HEADER = 'x-lore-toolsets';

/** Whether a tool is for MCP Apps only (`_meta.ui.visibility` without "model"). */
export function appOnly(tool: Tool): boolean {
  const visibility = (tool._meta as { ui?: { visibility?: unknown } } | undefined)?.ui?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/** Whether the client declared the MCP Apps extension (a host that keeps app-only tools from its model). */
function hostsApps(server: Server): boolean {
  const caps = server.getClientCapabilities() as { extensions?: Record<string, unknown> } | undefined;
  return !!caps?.extensions?.[MCP_APPS_EXTENSION];
}

/**
 * The tools this connection lists: app-only tools only for a client that hosts MCP Apps (a
 * plain client would hand them to its model), and only the toolsets it chose, or the node's.
 */
function visibleTools(backend: McpBackend, server: Server, ctx: ServerContext): Tool[] {
  let tools = backend.listTools();
  if (!hostsApps(server)) tools = tools.filter((t) => !appOnly(t));
  const sets = backend.toolsets;
  if (!sets) return tools;
  const req = ctx.http?.req;
  const asked = req
    ? (new URL(req.url).searchParams.get('toolsets') ?? req.headers.get(TOOLSETS_HEADER) ?? undefined)
    : undefined;
  let chosen = sets.default;
  if (asked !== undefined) {
    const parsed = sets.parse(asked);
    if ('error' in parsed)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, parsed.error, { toolsets: asked });
    chosen = parsed;
  }
  if (!chosen) return tools;
  const keep = new Set(chosen);
  return tools.filter((t) => {
    const set = sets.of(t.name);
    return set === undefined || keep.has(set);
  });
}

const PAGE_SIZE = 200;

/** Cursor pagination for large catalogs: the cursor is the next offset. */
function paginate<K extends string, T>(items: T[], cursor: string | undefined, key: K) {
  const start = cursor ? Number.parseInt(Buffer.from(cursor, 'base64url').toString(), 10) : 0;
  if (!Number.isInteger(start) || start < 0 || start > items.length)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  const end = start + PAGE_SIZE;
  const page = { [key]: items.slice(start, end) } as Record<K, T[]> & { nextCursor?: string };
  if (end < items.length) page.nextCursor = Buffer.from(String(end)).toString('base64url');
  return page;
}

export const unknownTool = (name: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, { tool: name });
