import { type CallInfo, errorResult, type Logger, ToolError } from '@lore/kit';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import {
  ProtocolError,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY as SERVER_INFO,
} from '@modelcontextprotocol/server';
import { type ForwardContext, forwardContext } from './context.js';
import { callInProcess } from './in-process-call.js';
import type { AggregatorMetrics } from './metrics.js';
import { type RetrySettings, tooLarge, withRetries } from './retries.js';
import type { Upstream } from './upstream.js';

/** Where an exposed tool name goes: the upstream, its own name there, and whether it may be retried. */
export interface Route {
  upstream: Upstream;
  original: string;
  retryable: boolean;
  /** Read-only: an attempt is cut at the retry deadline (a hung read is given up on). */
  readOnly: boolean;
}

/** What forwarding needs from the aggregator. */
export interface ForwardSettings {
  log: Logger;
  debug: boolean;
  metrics?: AggregatorMetrics | undefined;
  retry: RetrySettings;
  healthIntervalMs: number;
}

/** The tool result that says an upstream is unavailable (a 503 the client may retry). */
export function unavailable(
  healthIntervalMs: number,
  upstream: Upstream,
  tool: string,
  reason?: string,
): CallToolResult {
  const retryAfterSeconds = Math.max(1, Math.ceil(healthIntervalMs / 1000));
  return errorResult(
    new ToolError(
      503,
      `The ${upstream.name} service is unavailable right now${reason ? ` (${reason})` : ''}; retry in ${retryAfterSeconds} s.`,
      { retryAfterSeconds, service: upstream.name, tool },
    ),
  );
}

/**
 * One tools/call through the upstream's MCP client (or straight into an in-process backend),
 * retried within the deadline when the tool is read-only or idempotent. An upstream that fails
 * is a 503 result; the upstream's own errors come back unchanged.
 */
export async function forward(
  s: ForwardSettings,
  name: string,
  route: Route,
  args: Record<string, unknown>,
  call: CallInfo,
  ctx: ForwardContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { upstream } = route;
  const t0 = performance.now();
  let callLog: Logger | undefined;
  const log = () =>
    (callLog ??= s.log.child({ requestId: call.requestId, tool: name, upstream: upstream.name }));
  const deadline = Date.now() + s.retry.deadlineMs;
  const backend = upstream.opts.backend;
  // Each attempt of a read-only tool may take what is left of the deadline at most, so a hung
  // read is given up on at the deadline rather than after attempts × the upstream's timeout. An
  // idempotent write (an upload being parsed) keeps the upstream's own timeout for each attempt.
  const limit = upstream.opts.timeoutMs ?? 60_000;
  // An in-process backend is handed the caller's call as it is (no options it would not read).
  const attempt = backend
    ? () =>
        callInProcess(
          backend,
          upstream.name,
          route.original,
          args,
          { info: call, forward: ctx },
          route.readOnly ? Math.max(1, Math.min(limit, deadline - Date.now())) : limit,
        )
    : () => forwardContext.run(ctx, send);
  const send = () =>
    upstream.call(route.original, args, {
      info: call,
      forward: ctx,
      ...(route.readOnly ? { timeoutMs: Math.max(1, Math.min(limit, deadline - Date.now())) } : {}),
      get signal() {
        return call.signal;
      },
      onprogress: (p) => void call.progress(p.progress, p.total, p.message),
      ...(call.inputResponses ? { inputResponses: call.inputResponses } : {}),
      ...(call.requestState !== undefined ? { requestState: call.requestState } : {}),
      ...(call.clientCapabilities ? { clientCapabilities: call.clientCapabilities } : {}),
    });
  // Over HTTP the MCP client's fetch reads the caller from the context.
  let outcome = 'ok';
  try {
    const result = await withRetries(s.retry, route.retryable, attempt, new CallerView(call), log, deadline);
    // The client talks to the aggregator: it names itself, not the upstream behind it.
    const meta = (result as { _meta?: Record<string, unknown> })._meta;
    if (meta && SERVER_INFO in meta) {
      const { [SERVER_INFO]: _, ...rest } = meta;
      (result as { _meta?: Record<string, unknown> })._meta = rest;
    }
    if ((result as CallToolResult).isError) outcome = 'tool_error';
    if (s.debug) log().debug({ ms: Math.round(performance.now() - t0), outcome }, 'forwarded');
    return result;
  } catch (err) {
    if (call.signal.aborted) {
      outcome = 'cancelled';
      throw err;
    }
    outcome = 'upstream_error';
    log().warn({ err: (err as Error).message }, 'upstream call failed');
    if (err instanceof ProtocolError && err.code === ProtocolErrorCode.InvalidParams) throw err;
    if (tooLarge(err))
      return errorResult(
        new ToolError(400, 'The request is too large for the service behind this tool; send less.', {
          field: 'arguments',
          constraint: 'request body too large',
        }),
      );
    return unavailable(s.healthIntervalMs, upstream, name, (err as Error).message);
  } finally {
    s.metrics?.record(upstream.name, name, outcome, (performance.now() - t0) / 1000);
  }
}

/** Whether the caller has gone, read from its signal only when asked (after a failed attempt). */
export class CallerView {
  constructor(private readonly call: { readonly signal: AbortSignal }) {}
  get aborted(): boolean {
    return this.call.signal.aborted;
  }
}
