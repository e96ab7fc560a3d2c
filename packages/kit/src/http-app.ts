import { MODERN_PROTOCOL_REVISION } from '@lore/schema/protocol';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import type { LoreConfig } from './config.js';
import { directCalls } from './direct-call.js';
import { trustedProxies } from './edge.js';
import { type AuthExtra, type CallInfo, createMcpFactory, type McpBackend } from './mcp.js';
import { callerOf, edgeFields, readCallBody } from './pipeline.js';
import { type LegacySessionOptions, LegacySessions } from './sessions.js';

export interface HttpAppOptions {
  backend: McpBackend;
  config: LoreConfig;
  metrics?: { registry: { contentType: string; metrics(): Promise<string> } };
  ready?: () => Promise<Record<string, string>>;
  /**
   * What `/readyz` reports beside its checks without deciding readiness: a feature running
   * degraded (the embedding model unavailable, search by words only).
   */
  details?: () => Promise<Record<string, string>>;
  /** Extra routes (the aggregator's catalog page). */
  extend?: (app: Hono) => void;
  /**
   * Serve 2025-11-25 clients with sessions (server→client requests, list-changed
   * notifications) instead of statelessly.
   */
  legacySessions?: LegacySessionOptions | false;
  /**
   * Whether a key is valid. A 2025-11-25 session is opened only for a valid key; other legacy
   * requests (agent_register, a wrong key) are served statelessly, so unauthenticated traffic
   * can never fill the session table. Without it a session needs a key, unchecked.
   */
  verifyKey?: (key: string) => Promise<boolean>;
  /** Open 2025-11-25 sessions without a key (a server whose every tool is public). */
  openSessions?: boolean;
  /** Receives the endpoint's notifier, to tell clients the catalog changed. */
  onNotifier?: (notify: { toolsChanged(): void; resourceUpdated(uri: string): void }) => void;
  /**
   * Bytes accepted beyond LORE_MAX_BODY_BYTES. Services allow a little more than the
   * aggregator in front of them, because a forwarded request carries its envelope too.
   */
  bodyAllowance?: number;
  /**
   * Answers a parsed POST before the MCP endpoint's own adapters do, or returns undefined to let
   * them (a gateway that hands some calls on as they came).
   */
  intercept?: (call: InterceptedRequest) => Promise<InterceptAnswer | undefined>;
  /**
   * Answer 2026-07-28 `tools/call` requests that need nothing but their result without an SDK
   * server per request (`direct-call.ts`). On by default; off only to compare the two answers.
   */
  directCalls?: boolean;
}

/** A parsed POST to `/mcp`, as the endpoint received it. */
export interface InterceptedRequest {
  body: unknown;
  /** The body as it came, when it was JSON (to send on as is when nothing in it changes). */
  text?: string;
  headers: Pick<Headers, 'get'>;
  token: string;
  extra: AuthExtra;
  /** The request's abort signal: built when first read (it costs a controller), so read it only when needed. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once if the client goes away before its answer has been sent (at once if it
   * already has); the returned function stops listening. Cheaper than a listener on `signal`: on
   * a Node server it listens on the response's `close`, and no signal is built.
   */
  whenGone(listener: (reason: unknown) => void): () => void;
}

/** An intercepted request's answer: written out as it is (a lane), or as a web Response (the endpoint). */
export interface InterceptAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
}

export type NodeResponse = {
  destroyed?: boolean;
  writableFinished?: boolean;
  once(event: 'close', listener: () => void): unknown;
  removeListener(event: 'close', listener: () => void): unknown;
};

/** `InterceptedRequest.whenGone` over the Node response when there is one, else over the request's signal. */
export function goneHook(
  outgoing: NodeResponse | undefined,
  request: Request,
): (listener: (reason: unknown) => void) => () => void {
  if (!outgoing)
    return (listener) => {
      const signal = request.signal;
      if (signal.aborted) {
        listener(signal.reason);
        return () => {};
      }
      const on = () => listener(signal.reason);
      signal.addEventListener('abort', on, { once: true });
      return () => signal.removeEventListener('abort', on);
    };
  return nodeGoneHook(outgoing);
}

/** `InterceptedRequest.whenGone` over a Node response: its close before its end (@hono/node-server's own rule). */
export function nodeGoneHook(outgoing: NodeResponse): (listener: (reason: unknown) => void) => () => void {
  return (listener) => {
    const on = () => {
      if (!outgoing.writableFinished)
        listener(new DOMException('Client connection prematurely closed.', 'AbortError'));
    };
    if (outgoing.destroyed) {
      on();
      return () => {};
    }
    outgoing.once('close', on);
    return () => outgoing.removeListener('close', on);
  };
}

/** What a service accepts beyond the configured limit, for the aggregator's forwarding envelope. */
export const FORWARDING_ALLOWANCE = 64 * 1024;

const jsonRpcError = (c: Context, status: 400 | 413, message: string) =>
  c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, status);

/** The Hono app every Lore process serves: `/mcp`, `/healthz`, `/readyz`, `/metrics`. */
export function createHttpApp(opts: HttpAppOptions): Hono {
  const factory = createMcpFactory(opts.backend);
  const direct = opts.directCalls === false ? undefined : directCalls(opts.backend);
  const proxies = trustedProxies(opts.config.LORE_TRUSTED_PROXIES);
  const maxBody = opts.config.LORE_MAX_BODY_BYTES + (opts.bodyAllowance ?? 0);
  const limits = { maxBody, maxDepth: opts.config.LORE_MAX_JSON_DEPTH };
  const sessions = opts.legacySessions
    ? new LegacySessions(factory, {
        ...opts.legacySessions,
        maxRequestBodySize: maxBody,
      })
    : undefined;
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: maxBody,
    ...(sessions ? { legacy: 'reject' as const } : {}),
  });
  // Legacy requests that may not open a session.
  const sessionless = sessions ? createMcpHandler(factory, { maxRequestBodySize: maxBody }) : handler;
  const notifier = {
    toolsChanged() {
      handler.notify.toolsChanged();
      sessions?.toolsChanged();
    },
    resourceUpdated(uri: string) {
      handler.notify.resourceUpdated(uri);
      sessions?.resourceUpdated(uri);
    },
  };
  opts.onNotifier?.(notifier);
  opts.backend.onResourceUpdated?.((uri) => notifier.resourceUpdated(uri));
  const app = new Hono();
  app.all('/mcp', async (c) => {
    // Steps 2 and 3 of every call (pipeline.ts); step 1, Host and Origin, ran before any route.
    const read = await readCallBody(c.req.raw, limits);
    if ('refused' in read) return jsonRpcError(c, read.refused, read.message);
    const env = c.env as
      | { incoming?: { socket?: { remoteAddress?: string } }; outgoing?: NodeResponse }
      | undefined;
    const { token, extra } = callerOf(
      (name) => c.req.header(name),
      env?.incoming?.socket?.remoteAddress,
      proxies,
    );
    const ip = extra.ip;
    const authInfo = { token, clientId: 'lore', scopes: [], extra: { ...extra } };
    const { request, parsedBody, text } = read;
    // The adapters, first that answers: an interceptor, the direct exchange, a 2025-11-25
    // session, the stateless legacy fallback, a 2026-07-28 listener, the SDK's handler.
    if (opts.intercept && parsedBody !== undefined && !c.req.header('mcp-session-id')) {
      const answered = await opts.intercept({
        body: parsedBody,
        ...(text !== undefined ? { text } : {}),
        headers: request.headers,
        token,
        extra,
        get signal() {
          return request.signal;
        },
        whenGone: goneHook(env?.outgoing, request),
      });
      if (answered)
        return new Response(answered.body, { status: answered.status, headers: answered.headers });
    }
    if (direct && parsedBody !== undefined && !c.req.header('mcp-session-id')) {
      const answered = await direct({ headers: request.headers, body: parsedBody, token, extra, request });
      if (answered) return answered;
    }
    const body = parsedBody === undefined ? {} : { parsedBody };
    if (sessions && c.req.header('mcp-session-id')) return sessions.handle(request, authInfo, parsedBody, ip);
    if (
      sessions &&
      mayBeLegacy(c.req.header('mcp-protocol-version'), parsedBody) &&
      (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxBody }))
    ) {
      const mayOpen =
        opts.openSessions || (token !== '' && (opts.verifyKey ? await opts.verifyKey(token) : true));
      if (mayOpen) return sessions.handle(request, authInfo, parsedBody, ip);
      return sessionless.fetch(request, { authInfo, ...body });
    }
    const listened = opts.backend.subscribeResource ? listenedResources(parsedBody) : [];
    if (listened.length) {
      // A 2026-07-28 client listening for resource updates: the SDK keeps its stream, the
      // backend is told what it listens to for as long as the stream is open (the aggregator
      // subscribes at its upstreams), exactly as for a 2025-11-25 session's resources/subscribe.
      const call: CallInfo = edgeFields(
        {
          token: token || null,
          era: 'modern',
          requestId: extra.requestId!,
          signal: request.signal,
          sampling: undefined,
          progress: async () => {},
        },
        extra,
      );
      const held: string[] = [];
      for (const uri of listened)
        await opts.backend.subscribeResource!(uri, call).then(
          () => held.push(uri),
          () => {},
        );
      const release = () => {
        for (const uri of held.splice(0)) void opts.backend.unsubscribeResource?.(uri, call).catch(() => {});
      };
      const res = await handler.fetch(request, { authInfo, ...body }).catch((err) => {
        release();
        throw err;
      });
      if (!res.headers.get('content-type')?.includes('text/event-stream') || request.signal.aborted)
        release();
      else request.signal.addEventListener('abort', release, { once: true });
      return res;
    }
    return handler.fetch(request, { authInfo, ...body });
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const checks = (await opts.ready?.()) ?? {};
    const ok = Object.values(checks).every((v) => v === 'ok');
    const details = (await opts.details?.()) ?? {};
    return c.json(
      { status: ok ? 'ready' : 'not ready', checks, ...(Object.keys(details).length ? { details } : {}) },
      ok ? 200 : 503,
    );
  });
  app.get('/metrics', async (c) => {
    if (!opts.metrics) return c.text('', 200);
    return c.body(await opts.metrics.registry.metrics(), 200, {
      'content-type': opts.metrics.registry.contentType,
    });
  });
  opts.extend?.(app);
  return app;
}

/** The resource URIs a `subscriptions/listen` request asks updates of (at most 100). */
function listenedResources(body: unknown): string[] {
  const b = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } };
  if (!b || typeof b !== 'object' || b.method !== 'subscriptions/listen') return [];
  const uris = b.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris)
    ? [...new Set(uris.filter((u): u is string => typeof u === 'string'))].slice(0, 100)
    : [];
}

/**
 * Whether a request could be of the 2025-11-25 era, without classifying it: one JSON-RPC
 * request or notification under a 2026-07-28 MCP-Protocol-Version header is modern or refused,
 * never legacy (that is the SDK's own rule), so the SDK's handler classifies it once, alone.
 */
function mayBeLegacy(versionHeader: string | undefined, body: unknown): boolean {
  if (versionHeader?.trim() !== MODERN_PROTOCOL_REVISION) return true;
  return (
    !body ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    typeof (body as { method?: unknown }).method !== 'string'
  );
}
