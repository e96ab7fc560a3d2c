import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { Authenticator } from './auth.js';
import { bearerToken } from './auth.js';
import { ConfigError, type LoreConfig } from './config.js';
import { clientAddress, jsonTooDeep } from './edge.js';
import { errorResult, fromZodError, rateLimited, ToolError, toToolError, unauthenticated } from './errors.js';
import { controlCharacterError } from './input.js';
import type { Logger } from './logger.js';
import type { AuthExtra, CallInfo } from './mcp.js';
import { InputRequiredSignal } from './mcp-input.js';
import type { ServiceMetrics } from './metrics.js';
import { RATE_LIMITS, type RateLimiter } from './rate-limit.js';
import { type AnyTool, makeContext } from './tool.js';

/**
 * The path of one tool call, every step in the order it runs, whatever the transport.
 *
 *   1. Host and Origin      `hostCheck`         before any route (serve.ts), on the socket for a lane
 *   2. body limit           `readCallBody`      size, then nesting depth, then one JSON parse
 *   3. request id, caller   `callerOf`          key, request id, client address, trace context
 *      — the transport adapter turns the request into a `CallInfo` (`edgeFields`) and calls
 *        `McpBackend.callTool`: the SDK's handler (mcp.ts), the direct exchange (direct-call.ts),
 *        a 2025-11-25 session (sessions.ts), stdio (serve.ts), in process (the aggregator) —
 *   4. authentication       `runToolCall`       the key, verified (a public tool ignores a bad one)
 *   5. validation                               the input schema, then control characters
 *   6. rate limit                               per agent (per address without a key)
 *   7. handler                                  then its output checked against the output schema
 *   8. error mapping                            any failure becomes an `isError` result
 *
 * Validation comes before the rate limit on purpose: a malformed call must not count against an
 * agent's limit. Steps 1–3 are HTTP's; stdio and in-process calls enter at step 4 with the
 * caller their transport knows. A header every call should read is read in `callerOf`, and
 * carried to the handler by `edgeFields`: this file only.
 */

// ── 1. Host and Origin ────────────────────────────────────────────────────────────────────────

const LOCAL = ['localhost', '127.0.0.1', '[::1]'];

export interface HostCheck {
  /** The Host names accepted (`*`: any, a proxy in front checks them). */
  hosts: string[];
  /** Whether Host and Origin are checked at all. */
  checked: boolean;
  /** Whether a request with this Host and Origin may go on. */
  passes(host: string | undefined, origin: string | undefined): boolean;
}

/**
 * On loopback (the default) only local Host and Origin headers pass, which is what stops
 * DNS-rebinding attacks from a browser. On any other address the operator must say which Host
 * names to accept (`LORE_ALLOWED_HOSTS`, or `*` when a proxy in front checks them): binding wide
 * open without a word stops the process.
 */
export function hostCheck(config: Pick<LoreConfig, 'LORE_HOST' | 'LORE_ALLOWED_HOSTS'>): HostCheck {
  const allowed = config.LORE_ALLOWED_HOSTS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!allowed?.length && !LOCAL.includes(config.LORE_HOST) && config.LORE_HOST !== '::1')
    throw new ConfigError([
      `LORE_ALLOWED_HOSTS: required when LORE_HOST (${config.LORE_HOST}) is not a loopback address — ` +
        'list the Host names clients use (e.g. lore.example.com), or * when a proxy in front checks them',
    ]);
  const hosts = allowed?.length ? allowed : LOCAL;
  const checked = !hosts.includes('*');
  // The last Host seen to pass: most requests carry the same one, and its check parses a URL.
  let goodHost: string | undefined;
  return {
    hosts,
    checked,
    passes(host, origin) {
      if (!checked) return true;
      if (host === undefined || (host !== goodHost && !validateHostHeader(host, hosts).ok)) return false;
      goodHost = host;
      return validateOriginHeader(origin, hosts).ok;
    },
  };
}

// ── 2. Body limit ─────────────────────────────────────────────────────────────────────────────

export interface BodyLimits {
  maxBody: number;
  maxDepth: number;
}

/** A POST's body as the endpoint reads it, or why it was refused. */
export type CallBody =
  | { request: Request; parsedBody?: unknown; text?: string }
  | { refused: 413 | 400; message: string };

/**
 * A POST's JSON body, read once and parsed once here, and handed to the SDK, which would
 * otherwise clone the request to classify it and parse the body again. The body is read
 * straight from the socket when its length is declared (no web stream is built for it); a
 * chunked body is read from its stream up to the limit. A body that is not JSON goes on
 * untouched, for the SDK to answer as it does.
 */
export async function readCallBody(raw: Request, limits: BodyLimits): Promise<CallBody> {
  if (raw.method !== 'POST') return { request: raw };
  const declared = raw.headers.get('content-length');
  let text: string;
  if (declared !== null) {
    const length = Number(declared);
    if (!Number.isFinite(length) || length > limits.maxBody) return TOO_LARGE;
    if (length === 0) return { request: raw };
    text = await raw.text();
  } else {
    const read = await readLimited(raw, limits.maxBody);
    if (read === undefined) return TOO_LARGE;
    if (read === '') return { request: raw };
    text = read;
  }
  const parsed = parseCallBody(text, limits.maxDepth);
  if (parsed === TOO_DEEP)
    return {
      refused: 400,
      message: `Request body nests deeper than ${limits.maxDepth} levels (LORE_MAX_JSON_DEPTH)`,
    };
  if (parsed === NOT_JSON)
    return { request: new Request(raw.url, { method: raw.method, headers: raw.headers, body: text }) };
  return { request: raw, parsedBody: parsed, text };
}

const TOO_LARGE = { refused: 413, message: 'Request body too large' } as const;
export const TOO_DEEP: unique symbol = Symbol('too deep');
export const NOT_JSON: unique symbol = Symbol('not JSON');

/** A body's JSON, refused when it nests deeper than `maxDepth` (checked before anything is built). */
export function parseCallBody(text: string, maxDepth: number): unknown {
  if (jsonTooDeep(text, maxDepth)) return TOO_DEEP;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
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

// ── 3. Request id and caller ──────────────────────────────────────────────────────────────────

/** Who calls, as the request says it: the key (empty without one) and what travels with the call. */
export interface Caller {
  token: string;
  extra: AuthExtra;
}

/**
 * What every call carries from its request besides its key and request id, read by `callerOf` and
 * put on the call by `edgeFields` (`CallInfo` and `AuthExtra` extend it). A header every call
 * should read is one field here and one line in `callerOf`: nothing else changes.
 */
export interface EdgeFields {
  /** The client's address, past trusted proxies only. */
  ip?: string;
  /** The W3C trace context the client sent. */
  traceparent?: string;
}

/**
 * The caller of an HTTP request: its bearer key, its request id (the client's `X-Request-Id`, or
 * a new one), its address (the socket's peer, past trusted proxies only) and its trace context.
 * `header` reads one request header by its lower-case name.
 */
export function callerOf(
  header: (name: string) => string | undefined,
  peer: string | undefined,
  proxies: BlockList,
): Caller {
  const extra: AuthExtra = { requestId: header('x-request-id') || randomUUID() };
  const ip = clientAddress(peer, header('x-forwarded-for'), proxies);
  if (ip) extra.ip = ip;
  const tp = header('traceparent');
  if (tp) extra.traceparent = tp;
  return { token: bearerToken(header('authorization')) ?? '', extra };
}

/** What step 3 found, onto the call a transport builds (only the fields present, set in place). */
export function edgeFields(call: CallInfo, extra: AuthExtra): CallInfo {
  const { requestId: _, ...edge } = extra;
  for (const [name, value] of Object.entries(edge) as Array<[keyof EdgeFields, string | undefined]>)
    if (value) call[name] = value;
  return call;
}

// ── 4–8. Authentication, validation, rate limit, handler, error mapping ──────────────────────

/** What a service's calls need from its runtime. */
export interface Runtime {
  auth: Authenticator;
  limiter: RateLimiter | undefined;
  log: Logger;
  metrics: ServiceMetrics;
}

/** One call of one of a service's tools, steps 4 to 8; `done` hears the Lore code it ended with. */
export async function runToolCall<P>(
  tool: AnyTool<P>,
  args: Record<string, unknown>,
  info: CallInfo,
  rt: Runtime,
  ports: P,
  traceparent: string | undefined,
  done: (code: number) => void,
): Promise<CallToolResult | InputRequiredResult> {
  const name = tool.name;
  const t0 = performance.now();
  let code = 200;
  try {
    // 4. Authentication. A public tool (agent_register) ignores a key it cannot use: it is the way
    // out of a lost or revoked key, so a stale Authorization header must not lock the caller out.
    const caller = info.token ? await rt.auth.verify(info.token) : null;
    if (!caller && !tool.public)
      throw info.token
        ? unauthenticated('Invalid API key. Check the key, or get a new one with agent_register.')
        : unauthenticated();
    // 5. Validation. The schema speaks first, so a 400 names the same field whatever else is wrong.
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) throw fromZodError(parsed.error, args);
    const control = controlCharacterError(args);
    if (control) throw control;
    // 6. Rate limit.
    const wait = (await rt.limiter?.take(caller?.id ?? `ip:${info.ip ?? 'local'}`, tool.rateClass)) ?? 0;
    if (wait)
      throw rateLimited(
        wait,
        `Rate limit for ${tool.rateClass} calls reached (${RATE_LIMITS[tool.rateClass as 'read']}/min); retry in ${wait} s.`,
      );
    // 7. Handler, its output checked against the declared shape.
    let callLog: Logger | undefined;
    const ctx = makeContext<P>({
      caller,
      ports,
      get log() {
        callLog ??= rt.log.child({
          tool: name,
          requestId: info.requestId,
          ...(traceparent ? { traceparent } : {}),
        });
        return callLog;
      },
      get signal() {
        return info.signal;
      },
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
    // 8. Error mapping. An input request is not a failure: the transport answers it.
    if (err instanceof InputRequiredSignal) throw err;
    const te = toToolError(err);
    code = te.code;
    if (te.code >= 500) rt.log.error({ err, tool: name, requestId: info.requestId }, 'tool failed');
    // The client hears the server's own warning about its call, when it asked for log messages.
    await info.notify?.(
      te.code >= 500 ? 'error' : 'warning',
      { tool: name, requestId: info.requestId, ...te.toBody() },
      { ifAsked: true },
    );
    return errorResult(te);
  } finally {
    done(code);
    rt.metrics.record(name, code, (performance.now() - t0) / 1000);
  }
}
