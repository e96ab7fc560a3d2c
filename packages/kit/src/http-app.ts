import { randomUUID } from 'node:crypto';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { bearerToken } from './auth.js';
import type { LoreConfig } from './config.js';
import { directCalls } from './direct-call.js';
import { clientAddress, jsonTooDeep, trustedProxies } from './edge.js';
import { type AuthExtra, type CallInfo, createMcpFactory, type McpBackend } from './mcp.js';
import { type LegacySessionOptions, LegacySessions } from './sessions.js';

export interface HttpAppOptions {
  backend: McpBackend;
  config: LoreConfig;
  metrics?: { registry: { contentType: string; metrics(): Promise<string> } };
  ready?: () => Promise<Record<string, string>>;
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
   * Answers a request before the MCP endpoint does, or returns undefined to let it (the
   * distributed aggregator relays `tools/call` to the service that owns the tool).
   */
  relay?: (call: RelayRequest) => Promise<RelayAnswer | undefined>;
  /**
   * Answer 2026-07-28 `tools/call` requests that need nothing but their result without an SDK
   * server per request (`direct-call.ts`). On by default; off only to compare the two answers.
   */
  directCalls?: boolean;
}

/** A parsed POST to `/mcp`, as the endpoint received it. */
export interface RelayRequest {
  body: unknown;
  /** The body as it came, when it was JSON (a relay that changes nothing sends it on as is). */
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

/** A relay's answer: written out as it is (the relay lane), or as a web Response (the endpoint). */
export interface RelayAnswer {
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

/** `RelayRequest.whenGone` over the Node response when there is one, else over the request's signal. */
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

/** `RelayRequest.whenGone` over a Node response: its close before its end (@hono/node-server's own rule). */
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

/** The revision whose requests never open a 2025-11-25 session (see `mayBeLegacy`). */
const MODERN_REVISION = '2026-07-28';

const jsonRpcError = (c: Context, status: 400 | 413, message: string) =>
  c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, status);

/** The Hono app every Lore process serves: `/mcp`, `/healthz`, `/readyz`, `/metrics`. */
export function createHttpApp(opts: HttpAppOptions): Hono {
  const factory = createMcpFactory(opts.backend);
  const direct = opts.directCalls === false ? undefined : directCalls(opts.backend);
  const proxies = trustedProxies(opts.config.LORE_TRUSTED_PROXIES);
  const maxDepth = opts.config.LORE_MAX_JSON_DEPTH;
  const maxBody = opts.config.LORE_MAX_BODY_BYTES + (opts.bodyAllowance ?? 0);
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
    const extra: AuthExtra = { requestId: c.req.header('x-request-id') || randomUUID() };
    const peer = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
      ?.socket?.remoteAddress;
    const ip = clientAddress(peer, c.req.header('x-forwarded-for'), proxies);
    if (ip) extra.ip = ip;
    const tp = c.req.header('traceparent');
    if (tp) extra.traceparent = tp;
    const token = bearerToken(c.req.header('authorization')) ?? '';
    const authInfo = { token, clientId: 'lore', scopes: [], extra: { ...extra } };
    const read = await readJsonBody(c, maxBody, maxDepth);
    if ('tooLarge' in read) return jsonRpcError(c, 413, 'Request body too large');
    if ('tooDeep' in read)
      return jsonRpcError(c, 400, `Request body nests deeper than ${maxDepth} levels (LORE_MAX_JSON_DEPTH)`);
    const { request, parsedBody, text } = read;
    if (opts.relay && parsedBody !== undefined && !c.req.header('mcp-session-id')) {
      const relayed = await opts.relay({
        body: parsedBody,
        ...(text !== undefined ? { text } : {}),
        headers: request.headers,
        token,
        extra,
        get signal() {
          return request.signal;
        },
        whenGone: goneHook((c.env as { outgoing?: NodeResponse } | undefined)?.outgoing, request),
      });
      if (relayed) return new Response(relayed.body, { status: relayed.status, headers: relayed.headers });
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
      const call: CallInfo = {
        token: token || null,
        era: 'modern',
        requestId: extra.requestId!,
        signal: request.signal,
        sampling: undefined,
        progress: async () => {},
      };
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
    return c.json({ status: ok ? 'ready' : 'not ready', checks }, ok ? 200 : 503);
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
  if (versionHeader?.trim() !== MODERN_REVISION) return true;
  return (
    !body ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    typeof (body as { method?: unknown }).method !== 'string'
  );
}

/**
 * A POST's JSON body, read once and parsed once here, and handed to the SDK, which would
 * otherwise clone the request to classify it and parse the body again. The body is read
 * straight from the socket when its length is declared (no web stream is built for it); a
 * chunked body is read from its stream up to the limit. A body that is not JSON goes on
 * untouched, for the SDK to answer as it does.
 */
async function readJsonBody(
  c: Context,
  maxBody: number,
  maxDepth: number,
): Promise<
  { request: Request; parsedBody?: unknown; text?: string } | { tooDeep: true } | { tooLarge: true }
> {
  const raw = c.req.raw;
  if (raw.method !== 'POST') return { request: raw };
  const declared = c.req.header('content-length');
  let text: string;
  if (declared !== undefined) {
    const length = Number(declared);
    if (!Number.isFinite(length) || length > maxBody) return { tooLarge: true };
    if (length === 0) return { request: raw };
    text = await raw.text();
  } else {
    const read = await readLimited(raw, maxBody);
    if (read === undefined) return { tooLarge: true };
    if (read === '') return { request: raw };
    text = read;
  }
  if (jsonTooDeep(text, maxDepth)) return { tooDeep: true };
  try {
    return { request: raw, parsedBody: JSON.parse(text), text };
  } catch {
    return {
      request: new Request(raw.url, { method: raw.method, headers: raw.headers, body: text }),
    };
  }
}

/** A body of unknown length, read up to `max` bytes: its text, or undefined when it is longer. */
async function readLimited(raw: Request, max: number): Promise<string | undefined> {
  if (!raw.body) return '';
  const reader = raw.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
