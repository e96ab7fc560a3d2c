import { MODERN_PROTOCOL_REVISION as REVISION } from '@lore/schema/protocol';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY as SERVER_INFO,
} from '@modelcontextprotocol/server';
import { toolErrorOf } from './errors.js';
import type { AuthExtra, CallInfo, McpBackend } from './mcp.js';
import { edgeFields } from './pipeline.js';

const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const noProgress = async () => {};
/** The envelope's keys: wire bookkeeping, which the SDK lifts out of `_meta` before a handler sees it. */
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
]);

export interface DirectCallRequest {
  headers: Headers;
  body: unknown;
  token: string;
  extra: AuthExtra;
  /** The request, for its abort signal: read only if the call asks for it (it costs a controller). */
  request: Request;
}

/**
 * The direct exchange: a 2026-07-28 `tools/call` that can only ever be answered with its result
 * is answered without building an SDK server and transport for it, which is most of what a call
 * costs (a server instance, its handlers, the SDK validating its own messages, a web Response
 * through a stream). The answer is the one the SDK would give, field for field (the test
 * `direct-call.test.ts` compares the two on every kind of answer).
 *
 * Everything else goes to the SDK (`undefined`): other methods and eras, requests the SDK would
 * refuse (a malformed envelope, missing or mismatched standard headers), and calls that may
 * need the exchange itself — a progress token, a chosen log level (messages before the result),
 * a client that declares sampling or elicitation (input requests), or any parameter beyond the
 * tool's name, arguments and envelope (tasks, a later round's input responses).
 */
export function directCalls(backend: McpBackend) {
  const serverInfo = backend.info;
  return async function answer(req: DirectCallRequest): Promise<Response | undefined> {
    const message = direct(req.headers, req.body);
    if (!message) return undefined;
    const { id, params } = message;
    const envelope = params._meta as Record<string, unknown>;
    const meta = handlerMeta(envelope);
    const call: CallInfo = {
      token: req.token || null,
      era: 'modern',
      requestId: req.extra.requestId!,
      get signal() {
        return req.request.signal;
      },
      sampling: undefined,
      elicitation: undefined,
      progress: noProgress,
      ...(meta ? { meta } : {}),
      clientCapabilities: envelope[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown>,
    };
    edgeFields(call, req.extra);
    let reply: unknown;
    let headers: Record<string, string> = JSON_ONLY;
    try {
      const result = (await backend.callTool(
        params.name as string,
        (params.arguments ?? {}) as Record<string, unknown>,
        call,
      )) as Record<string, unknown>;
      reply = { result: wireToolResult(result, serverInfo), jsonrpc: '2.0', id };
      if (result.isError === true)
        headers = { ...JSON_ONLY, [TOOL_ERROR_HEADER]: String(toolErrorOf(result)?.code ?? 'error') };
    } catch (err) {
      reply = { jsonrpc: '2.0', id, error: encodeError(err) };
    }
    return new Response(JSON.stringify(reply), { status: 200, headers });
  };
}

type Message = { id: string | number; params: Record<string, unknown> };

const JSON_ONLY = { 'content-type': 'application/json' } as const;
/**
 * Set on a direct answer whose result is an error (`isError`): its Lore code (`_meta["lore/error"]`),
 * or `error`. For operators' proxies and the aggregator's call metrics, which then need not read
 * the body; the body says the same.
 */
export const TOOL_ERROR_HEADER = 'x-lore-tool-error';

/** The request, when the direct exchange may answer it. */
function direct(headers: Headers, body: unknown): Message | undefined {
  if (headers.get('mcp-protocol-version')?.trim() !== REVISION) return undefined;
  if (!isPlainObject(body) || body.method !== 'tools/call') return undefined;
  for (const key in body) if (!MESSAGE_KEYS.has(key)) return undefined;
  const params = body.params;
  if (!isPlainObject(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (!PARAM_KEYS.has(key)) return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || 'progressToken' in meta || LOG_LEVEL_META_KEY in meta) return undefined;
  const caps = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(caps) || 'sampling' in caps || 'elicitation' in caps) return undefined;
  // The standard headers the SDK requires on a modern request, present and agreeing with the
  // body (a Base64-encoded Mcp-Name is left to the SDK to decode).
  const method = headers.get('mcp-method')?.trim();
  const name = headers.get('mcp-name')?.trim();
  if (method !== 'tools/call' || name !== params.name || name.startsWith('=?')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  // JSON.parse keeps a "__proto__" key as an own property; the SDK's parsing drops it, and so
  // must what a tool is handed: such a request takes the SDK's path.
  if (holdsProtoKey(params)) return undefined;
  // The SDK's own classifier: the envelope and the JSON-RPC shape, exactly as it checks them.
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: REVISION,
    mcpMethodHeader: method,
    mcpNameHeader: name,
    body,
  });
  if (
    route.kind !== 'modern' ||
    route.messageKind !== 'request' ||
    route.classification.revision !== REVISION
  )
    return undefined;
  return body as Message;
}

/** `_meta` as a handler sees it: without the envelope, and absent when nothing else is left. */
function handlerMeta(meta: Record<string, unknown>): Record<string, unknown> | undefined {
  let rest: Record<string, unknown> | undefined;
  for (const key in meta) {
    if (ENVELOPE_KEYS.has(key)) continue;
    rest ??= {};
    rest[key] = meta[key];
  }
  return rest;
}

/**
 * A `tools/call` result as the SDK puts it on the 2026-07-28 wire: `content` present, the
 * `resultType` discriminator stamped, and the server's identity in `_meta` unless the result
 * already names one.
 */
export function wireToolResult(
  result: Record<string, unknown>,
  serverInfo: McpBackend['info'] | Record<string, unknown>,
): Record<string, unknown> {
  let out = result;
  if (
    out.content === undefined &&
    !FOREIGN_KEYS.some((key) => key in out) &&
    out.resultType !== 'input_required'
  )
    out = { ...out, content: [] };
  if (out.resultType === undefined) out = { ...out, resultType: 'complete' };
  const { _meta: meta, ...rest } = out;
  if (meta === undefined) return { ...rest, _meta: { [SERVER_INFO]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO] !== undefined) return out;
  // `_meta` last, the server's identity last in it: the serialised answer then ends with them,
  // where the aggregator's relay can put its own name in place without parsing the rest.
  return { ...rest, _meta: { ...meta, [SERVER_INFO]: serverInfo } };
}

/** Keys of results that are not a tool's answer (a task, an input request): never given `content`. */
const FOREIGN_KEYS = ['task', 'inputRequests', 'requestState'];

/** A thrown error as the SDK answers it: its code when it has one, else an internal error. */
function encodeError(err: unknown): { code: number; message: string; data?: unknown } {
  const e = (err ?? {}) as { code?: unknown; message?: string; data?: unknown };
  const thrown = Number.isSafeInteger(e.code) ? (e.code as number) : -32603;
  return {
    // The SDK's 2026-07-28 codec reports "resource not found" as invalid params.
    code: thrown === -32002 ? -32602 : thrown,
    message: e.message ?? 'Internal error',
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

/** Whether a parsed JSON value has a `__proto__` key anywhere (strings are not looked into). */
function holdsProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (Object.hasOwn(value, '__proto__')) return true;
  for (const key in value) if (holdsProtoKey((value as Record<string, unknown>)[key])) return true;
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
