import {
  type InterceptAnswer,
  type InterceptedRequest,
  type Logger,
  nextTraceparent,
  TOOL_ERROR_HEADER,
  wireToolResult,
} from '@lore/kit';
import { MODERN_PROTOCOL_REVISION } from '@lore/schema';
import type { Dispatcher, Pool } from 'undici';
import type { Aggregator, Route } from './aggregator.js';
import { deadlines } from './deadlines.js';
import { forwardVia } from './forward.js';
import { type Answer, RELAYED_BY, respond } from './relay-answer.js';
import type { Upstream } from './upstream.js';

export { RELAYED_BY } from './relay-answer.js';

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
  relay(req: InterceptedRequest): Promise<InterceptAnswer | undefined>;
  close(): Promise<void>;
}

/** What a relay sends to one service: its pool, where, and the headers every call to it carries. */
interface Target {
  pool: Pool;
  origin: string;
  path: string;
  /** Configured headers and the fixed ones of a relayed 2026-07-28 tools/call. */
  base: Record<string, string>;
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
 *
 * Per call it does what it must and no more: the request is parsed (by the endpoint) to route
 * and check it, sent on over undici's `dispatch` with a handler of its own (no abort controller,
 * no body stream, no async resource per call), and the answer's bytes are collected and renamed
 * in place; the client's going away and the upstream's timeout abort the attempt directly.
 */
export async function createRelay(aggregator: Aggregator): Promise<Relay> {
  const { Pool } = await import('undici');
  const pools = new Map<string, Pool>();
  const targets = new Map<Upstream, Target>();
  const targetOf = (u: Upstream): Target => {
    let t = targets.get(u);
    if (!t) {
      const url = new URL(u.opts.url!);
      let pool = pools.get(url.origin);
      if (!pool) {
        pool = new Pool(url.origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
        pools.set(url.origin, pool);
      }
      t = {
        pool,
        origin: url.origin,
        path: url.pathname + url.search,
        base: {
          ...(u.opts.headers ?? {}),
          'content-type': 'application/json',
          'mcp-protocol-version': MODERN_PROTOCOL_REVISION,
          'mcp-method': 'tools/call',
        },
      };
      targets.set(u, t);
    }
    return t;
  };
  const serverInfo = { ...aggregator.info };
  const serverInfoBytes = Buffer.from(JSON.stringify(serverInfo));

  function send(route: Route, req: InterceptedRequest, body: string, attempt: Attempt): void {
    const u = route.upstream;
    const t = targetOf(u);
    const headers: Record<string, string> = {
      ...t.base,
      accept: req.headers.get('accept') ?? 'application/json, text/event-stream',
      'mcp-name': route.original,
      'x-request-id': req.extra.requestId ?? '',
      traceparent: nextTraceparent(req.extra.traceparent),
    };
    if (u.opts.forwardIdentity && req.token) headers.authorization = `Bearer ${req.token}`;
    if (req.extra.ip) headers['x-forwarded-for'] = req.extra.ip;
    t.pool.dispatch({ origin: t.origin, path: t.path, method: 'POST', headers, body }, attempt);
  }

  const relay = async (req: InterceptedRequest): Promise<InterceptAnswer | undefined> => {
    if (
      req.headers.get('mcp-protocol-version')?.trim() !== MODERN_PROTOCOL_REVISION ||
      !isToolsCall(req.body)
    )
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
    // The same policy, deadline and error mapping as every forwarded call (forward.ts), the
    // answer on this way's wire: the service's bytes, or a failure as a 2026-07-28 result.
    let toolError = false;
    return forwardVia(aggregator.forwarding, name, route, req, req.extra.requestId, {
      attempt: (timeoutMs) => {
        const attempt = new Attempt(req, timeoutMs);
        send(route, req, body, attempt);
        return attempt.answer.then((a) =>
          respond(a, id, serverInfo, serverInfoBytes, upstream.name, () => {
            toolError = true;
          }),
        );
      },
      outcome: () => (toolError ? 'tool_error' : 'ok'),
      failed: (result) => ({
        status: 200,
        headers: { 'content-type': 'application/json', [RELAYED_BY]: upstream.name },
        // On the wire as every 2026-07-28 result is (resultType, the server named), or clients refuse it.
        body: JSON.stringify({ jsonrpc: '2.0', id, result: wireToolResult(result, serverInfo) }),
      }),
    });
  };
  return {
    relay,
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close().catch(() => {})));
      pools.clear();
      targets.clear();
    },
  };
}

const TIMEOUT = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/**
 * One attempt at a service: undici's request handler (`Dispatcher.dispatch`), limited by the
 * upstream's timeout (on the timer the attempts of the same length share, see deadlines.ts) and
 * by the caller, whose going away aborts it. The limit is released as soon as the answer has
 * been read, so a finished call leaves no timer and no listener behind. The answer: a JSON body
 * collected whole, or an event stream handed on chunk by chunk (paused while the client reads
 * slower than the service writes). A 5xx or an answer that is neither fails the attempt, as the
 * MCP client would, so it may be retried.
 */
export class Attempt implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Answer>;
  private settle!: (a: Answer) => void;
  private fail!: (err: unknown) => void;
  private abortRequest: ((err: Error) => void) | undefined;
  private reason: Error | undefined;
  private released = false;
  private readonly cancelTimer: () => void;
  private readonly stopListening: () => void;
  private status = 0;
  /** 'json', 'stream', or 'fail' (a status or type the client would refuse). */
  private mode: 'json' | 'stream' | 'fail' = 'fail';
  private type = '';
  private toolError = false;
  private chunks: Buffer[] = [];
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private resume: (() => void) | undefined;

  constructor(caller: Pick<InterceptedRequest, 'whenGone'>, timeoutMs: number) {
    this.answer = new Promise<Answer>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    this.cancelTimer = deadlines.after(timeoutMs, () => this.abort(TIMEOUT()));
    this.stopListening = caller.whenGone((reason) =>
      this.abort(reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError')),
    );
  }

  /** Ends the attempt with `err` (the request is aborted when it has started, or as soon as it does). */
  abort(err: Error): void {
    if (this.reason) return;
    this.reason = err;
    this.release();
    // Started: undici ends it and reports the error (onError). Still queued: it fails now, and
    // is aborted as soon as undici hands it a connection.
    if (this.abortRequest) this.abortRequest(err);
    else this.fail(err);
  }

  /** Drops the deadline and the caller's listener. */
  private release(): void {
    if (this.released) return;
    this.released = true;
    this.cancelTimer();
    this.stopListening();
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.reason) abort(this.reason);
    else this.abortRequest = abort;
  }

  onHeaders(status: number, headers: Buffer[] | string[] | null, resume: () => void): boolean {
    this.status = status;
    if (headers)
      for (let i = 0; i + 1 < headers.length; i += 2) {
        const key = headers[i]!;
        if (key.length === 12 && key.toString().toLowerCase() === 'content-type')
          this.type = headers[i + 1]!.toString();
        else if (
          key.length === TOOL_ERROR_HEADER.length &&
          key.toString().toLowerCase() === TOOL_ERROR_HEADER
        )
          this.toolError = true;
      }
    if (status >= 500) this.mode = 'fail';
    else if (this.type.startsWith('application/json')) this.mode = 'json';
    else if (this.type.startsWith('text/event-stream')) this.mode = 'stream';
    if (this.mode !== 'stream') return true;
    this.resume = resume;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.stream = controller;
        },
        pull: () => this.resume?.(),
        cancel: (reason) => this.abort(reason instanceof Error ? reason : new Error(String(reason))),
      },
      { highWaterMark: 16 },
    );
    this.settle({ kind: 'stream', status, type: this.type, body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.mode === 'json') this.chunks.push(chunk);
    else if (this.mode === 'stream' && this.stream) {
      this.stream.enqueue(chunk);
      return (this.stream.desiredSize ?? 1) > 0;
    }
    return true;
  }

  onComplete(): void {
    this.release();
    if (this.mode === 'json') {
      const chunks = this.chunks;
      this.chunks = [];
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.settle({ kind: 'json', status: this.status, body, toolError: this.toolError });
    } else if (this.mode === 'stream') this.stream?.close();
    // The service, not the call, failed: what the MCP client would throw on, the same way.
    else this.fail(new Error(`HTTP ${this.status}`));
  }

  onError(err: Error): void {
    this.release();
    if (this.mode === 'stream' && this.stream) this.stream.error(err);
    else this.fail(err);
  }
}
