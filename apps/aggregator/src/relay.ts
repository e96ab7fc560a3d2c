import {
  type Logger,
  nextTraceparent,
  type RelayRequest,
  TOOL_ERROR_HEADER,
  wireToolResult,
} from '@lore/kit';
import { SERVER_INFO_META_KEY as SERVER_INFO } from '@modelcontextprotocol/server';
import type { Dispatcher, Pool } from 'undici';
import type { Aggregator, Route } from './aggregator.js';
import { deadlines } from './deadlines.js';
import { withRetries } from './retries.js';
import type { Upstream } from './upstream.js';

/** The revision whose stateless tools/call can travel to a service as it came. */
const MODERN = '2026-07-28';
/** The response header naming the service a relayed call went to (for operators and tests). */
export const RELAYED_BY = 'x-lore-upstream';

interface JsonRpcCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: unknown; _meta?: Record<string, unknown> } & Record<string, unknown>;
}

function isToolsCall(body: unknown): body is JsonRpcCall {
  const b = body as Partial<JsonRpcCall> | null;
  return (
    !!b &&
    typeof b === 'object' &&
    !Array.isArray(b) &&
    b.jsonrpc === '2.0' &&
    b.method === 'tools/call' &&
    (typeof b.id === 'string' || typeof b.id === 'number') &&
    !!b.params &&
    typeof b.params === 'object' &&
    typeof b.params.name === 'string'
  );
}

export interface Relay {
  /** Answers a tools/call, or returns undefined for the full MCP exchange to answer it. */
  relay(req: RelayRequest): Promise<Response | undefined>;
  close(): Promise<void>;
}

/**
 * The distributed aggregator's fast path for `tools/call`: the JSON-RPC request goes to the
 * service that owns the tool as it came (the tool renamed, nothing else), over a keep-alive
 * connection pool per service, and the service's answer comes back as it went (a JSON body
 * with the aggregator named as the server, or the service's event stream). What the aggregator
 * adds is kept: the caller's key for Lore's services, the request id, the trace context, the
 * client's address, retries of read-only and idempotent tools, and health (a down service's
 * tools are not relayed). Everything else — 2025-11-25 sessions, other methods, upstreams that
 * are not Lore services over HTTP — takes the full MCP exchange (returns undefined).
 */
export async function createRelay(aggregator: Aggregator, log: Logger): Promise<Relay> {
  const { Pool } = await import('undici');
  const pools = new Map<string, Pool>();
  const poolFor = (url: URL) => {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
      pools.set(url.origin, pool);
    }
    return pool;
  };
  const serverInfo = { ...aggregator.info };
  const serverInfoJson = JSON.stringify(serverInfo);

  const urls = new Map<string, URL>();
  const urlOf = (u: Upstream) => {
    let url = urls.get(u.opts.url!);
    if (!url) {
      url = new URL(u.opts.url!);
      urls.set(u.opts.url!, url);
    }
    return url;
  };

  async function send(
    route: Route,
    req: RelayRequest,
    body: string,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const u = route.upstream;
    const url = urlOf(u);
    const headers: Record<string, string> = {
      ...(u.opts.headers ?? {}),
      'content-type': 'application/json',
      accept: req.headers.get('accept') ?? 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': route.original,
      'x-request-id': req.extra.requestId ?? '',
      traceparent: nextTraceparent(req.extra.traceparent),
    };
    if (u.opts.forwardIdentity && req.token) headers.authorization = `Bearer ${req.token}`;
    if (req.extra.ip) headers['x-forwarded-for'] = req.extra.ip;
    return poolFor(url).request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers,
      body,
      signal,
    });
  }

  const relay = async (req: RelayRequest): Promise<Response | undefined> => {
    if (req.headers.get('mcp-protocol-version')?.trim() !== MODERN || !isToolsCall(req.body))
      return undefined;
    const name = req.body.params.name;
    const id = req.body.id;
    const route = aggregator.relayRoute(name);
    if (!route) return undefined;
    const upstream: Upstream = route.upstream;
    // Renamed only when the service knows the tool by another name; otherwise sent on as it came.
    const body =
      route.original === name && req.text !== undefined
        ? req.text
        : JSON.stringify({ ...req.body, params: { ...req.body.params, name: route.original } });
    const policy = aggregator.retryPolicy;
    const deadline = Date.now() + policy.deadlineMs;
    const t0 = performance.now();
    let outcome = 'ok';
    const attempt = async () => {
      const limit = attemptSignal(req.signal, upstream.opts.timeoutMs ?? 60_000);
      let handedOn = false;
      try {
        const res = await send(route, req, body, limit.signal);
        const type = String(res.headers['content-type'] ?? '');
        if (
          res.statusCode >= 500 ||
          !(type.startsWith('application/json') || type.startsWith('text/event-stream'))
        ) {
          // The service, not the call, failed: what the MCP client would throw on, the same way.
          await res.body.dump();
          throw new Error(`HTTP ${res.statusCode}`);
        }
        // A stream is read after this returns: it releases the attempt's limit when it ends.
        handedOn = !type.startsWith('application/json');
        return await answer(
          res,
          id,
          serverInfo,
          serverInfoJson,
          upstream.name,
          (o) => {
            outcome = o;
          },
          limit.release,
        );
      } finally {
        if (!handedOn) limit.release();
      }
    };
    try {
      // The same policy as the full MCP exchange's calls: backoff with jitter, within the deadline.
      return await withRetries(policy, route.retryable, attempt, req.signal, log, deadline);
    } catch (err) {
      if (req.signal.aborted) {
        outcome = 'cancelled';
        throw err;
      }
      outcome = 'upstream_error';
      log.warn({ upstream: upstream.name, tool: name, err: (err as Error).message }, 'upstream call failed');
      return Response.json(
        {
          jsonrpc: '2.0',
          id: req.body.id,
          // On the wire as every 2026-07-28 result is (resultType, the server named), or clients refuse it.
          result: wireToolResult(
            aggregator.unavailableResult(upstream, name, (err as Error).message),
            serverInfo,
          ),
        },
        { headers: { [RELAYED_BY]: upstream.name } },
      );
    } finally {
      aggregator.recordCall(upstream.name, name, outcome, (performance.now() - t0) / 1000);
    }
  };
  return {
    relay,
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close().catch(() => {})));
      pools.clear();
    },
  };
}

/**
 * One attempt's limit: aborted when the caller goes away or the upstream's timeout passes, and
 * released (its deadline dropped, listener removed) as soon as the attempt's answer has been read. Not
 * `AbortSignal.any([caller, AbortSignal.timeout(ms)])`: that leaves a timer and weakly held
 * signals behind every call until the timeout would have fired (60 s), which under load is tens
 * of thousands of them for the garbage collector to walk — the relay's slowest answers.
 */
export function attemptSignal(
  caller: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; release: () => void } {
  const limit = new AbortController();
  const onAbort = () => limit.abort(caller.reason);
  if (caller.aborted) limit.abort(caller.reason);
  else caller.addEventListener('abort', onAbort, { once: true });
  // On the timer the attempts of the same length share (see deadlines.ts), not one of its own.
  const cancel = deadlines.after(timeoutMs, () =>
    limit.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
  );
  return {
    signal: limit.signal,
    release: () => {
      cancel();
      caller.removeEventListener('abort', onAbort);
    },
  };
}

/** The service's answer as the client's: JSON with the aggregator named as the server, or the stream as it is. */
async function answer(
  res: Dispatcher.ResponseData,
  id: unknown,
  info: Record<string, unknown>,
  infoJson: string,
  upstream: string,
  outcome: (o: string) => void,
  release: () => void,
): Promise<Response> {
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) {
    const text = await res.body.text();
    const renamed = renamedAnswer(text, id, infoJson);
    if (renamed !== undefined) {
      if (res.headers[TOOL_ERROR_HEADER] !== undefined) outcome('tool_error');
      return new Response(renamed, {
        status: res.statusCode,
        headers: { 'content-type': 'application/json', [RELAYED_BY]: upstream },
      });
    }
    const message = JSON.parse(text) as {
      result?: { isError?: boolean; _meta?: Record<string, unknown> };
    };
    const meta = message.result?._meta;
    if (meta && SERVER_INFO in meta) meta[SERVER_INFO] = info;
    if (message.result?.isError) outcome('tool_error');
    // A Response over a string: the HTTP server writes it as it is, without a stream to read.
    return new Response(JSON.stringify(message), {
      status: res.statusCode,
      headers: { 'content-type': 'application/json', [RELAYED_BY]: upstream },
    });
  }
  const headers = new Headers({ [RELAYED_BY]: upstream });
  if (type) headers.set('content-type', type);
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        for await (const chunk of res.body) controller.enqueue(chunk as Uint8Array);
        controller.close();
      } catch (err) {
        controller.error(err);
      } finally {
        release();
      }
    },
  });
  return new Response(type ? stream : null, { status: res.statusCode, headers });
}

const SERVER_INFO_KEY = `${JSON.stringify(SERVER_INFO)}:`;
const META_OPEN = '"_meta":{';

/**
 * A service's answer with the aggregator named as its server, without parsing it, when the answer
 * ends the way the direct exchange writes a successful one: `_meta` the result's last member and
 * the server's identity its only one (`wireToolResult`), then the envelope
 * (`…"_meta":{"io.modelcontextprotocol/serverInfo":{…}}},"jsonrpc":"2.0","id":<id>}`). The text
 * can end so only where the envelope ends (in a string every quote is escaped), the identity must
 * parse as one JSON object on its own, and the result has one `_meta`: what is replaced is the
 * service's name, never what a tool wrote. Any other answer is left to the parser (`undefined`).
 */
export function renamedAnswer(text: string, id: unknown, infoJson: string): string | undefined {
  const tail = `}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  if (!text.endsWith(tail)) return undefined;
  const end = text.length - tail.length;
  const at = text.lastIndexOf(SERVER_INFO_KEY, end);
  if (at < META_OPEN.length || !text.startsWith(META_OPEN, at - META_OPEN.length)) return undefined;
  const start = at + SERVER_INFO_KEY.length;
  try {
    const value: unknown = JSON.parse(text.slice(start, end));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  } catch {
    return undefined;
  }
  return text.slice(0, start) + infoJson + text.slice(end);
}
