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
 * How an answer a forwarded call got is counted: `tool_error` when the tool itself failed, else
 * `ok`; and what the caller is answered when no attempt got one (the tool result, on the way's
 * own wire).
 */
export interface Way<T> {
  /** One attempt, bounded by `timeoutMs` (what is left of the deadline for a read-only tool). */
  attempt(timeoutMs: number): Promise<T>;
  outcome(answer: T): 'ok' | 'tool_error';
  failed(result: CallToolResult): T;
}

/**
 * Every forwarded tools/call, whichever way it travels (in process, over the upstream's MCP
 * client, relayed as it came: see relay.ts): one deadline from its start, each attempt of a
 * read-only tool cut at what is left of it (a hung read is given up on at the deadline rather
 * than after attempts × the upstream's timeout; an idempotent write, an upload being parsed,
 * keeps the upstream's own timeout for each attempt), retries of read-only and idempotent tools
 * within it (retries.ts), one error mapping (`failure`), one outcome metric and one log line.
 */
export async function forwardVia<T>(
  s: ForwardSettings,
  name: string,
  route: Route,
  caller: { readonly signal: AbortSignal },
  requestId: string | undefined,
  way: Way<T>,
): Promise<T> {
  const { upstream } = route;
  const t0 = performance.now();
  let callLog: Logger | undefined;
  const log = () => (callLog ??= s.log.child({ requestId, tool: name, upstream: upstream.name }));
  const deadline = Date.now() + s.retry.deadlineMs;
  const limit = upstream.opts.timeoutMs ?? 60_000;
  const attempt = route.readOnly
    ? () => way.attempt(Math.max(1, Math.min(limit, deadline - Date.now())))
    : () => way.attempt(limit);
  let outcome = 'ok';
  try {
    // The caller's signal is read only if an attempt fails (building it may cost a controller).
    const answer = await withRetries(
      s.retry,
      route.retryable,
      attempt,
      new CallerView(caller),
      log,
      deadline,
    );
    outcome = way.outcome(answer);
    if (s.debug) log().debug({ ms: Math.round(performance.now() - t0), outcome }, 'forwarded');
    return answer;
  } catch (err) {
    if (caller.signal.aborted) {
      outcome = 'cancelled';
      throw err;
    }
    outcome = 'upstream_error';
    log().warn({ err: (err as Error).message }, 'upstream call failed');
    return way.failed(failure(s, upstream, name, err));
  } finally {
    s.metrics?.record(upstream.name, name, outcome, (performance.now() - t0) / 1000);
  }
}

/**
 * What a call that got no answer from its upstream becomes: the protocol's own refusal of its
 * parameters is thrown on, a request too large for the service is a 400 naming the arguments,
 * anything else says the service is unavailable (a 503 the client may retry).
 */
function failure(s: ForwardSettings, upstream: Upstream, name: string, err: unknown): CallToolResult {
  if (err instanceof ProtocolError && err.code === ProtocolErrorCode.InvalidParams) throw err;
  if (tooLarge(err))
    return errorResult(
      new ToolError(400, 'The request is too large for the service behind this tool; send less.', {
        field: 'arguments',
        constraint: 'request body too large',
      }),
    );
  return unavailable(s.healthIntervalMs, upstream, name, (err as Error).message);
}

/**
 * One tools/call through the upstream's MCP client, or straight into an in-process backend
 * (`forwardVia`'s policy either way). The upstream's own errors come back unchanged.
 */
export function forward(
  s: ForwardSettings,
  name: string,
  route: Route,
  args: Record<string, unknown>,
  call: CallInfo,
  ctx: ForwardContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { upstream } = route;
  const backend = upstream.opts.backend;
  // An in-process backend is handed the caller's call as it is (no options it would not read).
  const attempt = backend
    ? (timeoutMs: number) =>
        callInProcess(backend, upstream.name, route.original, args, { info: call, forward: ctx }, timeoutMs)
    : // Over HTTP the MCP client's fetch reads the caller from the context.
      (timeoutMs: number) =>
        forwardContext.run(ctx, () =>
          upstream.call(route.original, args, {
            info: call,
            forward: ctx,
            // Each attempt of a read-only tool is cut at the deadline; others keep the client's own timeout.
            ...(route.readOnly ? { timeoutMs } : {}),
            get signal() {
              return call.signal;
            },
            onprogress: (p) => void call.progress(p.progress, p.total, p.message),
            ...(call.inputResponses ? { inputResponses: call.inputResponses } : {}),
            ...(call.requestState !== undefined ? { requestState: call.requestState } : {}),
            ...(call.clientCapabilities ? { clientCapabilities: call.clientCapabilities } : {}),
          }),
        );
  return forwardVia(s, name, route, call, call.requestId, {
    attempt,
    outcome: (result) => {
      // The client talks to the aggregator: it names itself, not the upstream behind it.
      const meta = (result as { _meta?: Record<string, unknown> })._meta;
      if (meta && SERVER_INFO in meta) {
        const { [SERVER_INFO]: _, ...rest } = meta;
        (result as { _meta?: Record<string, unknown> })._meta = rest;
      }
      return (result as CallToolResult).isError ? 'tool_error' : 'ok';
    },
    failed: (result) => result,
  });
}

/** Whether the caller has gone, read from its signal only when asked (after a failed attempt). */
export class CallerView {
  constructor(private readonly call: { readonly signal: AbortSignal }) {}
  get aborted(): boolean {
    return this.call.signal.aborted;
  }
}
