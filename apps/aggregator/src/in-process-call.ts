import { type CallInfo, InputRequiredSignal, type McpBackend } from '@lore/kit';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/client';
import { forwardContext } from './context.js';
import type { CallOptions } from './upstream.js';

/**
 * A call into an in-process backend: the caller's identity, request id and trace context from
 * the forwarding context, everything else (sampling, progress, cancellation) from the
 * aggregator's call. The timeout holds as it does over HTTP: the call is aborted and fails.
 */
export async function callInProcess(
  backend: McpBackend,
  upstream: string,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
  timeoutMs: number,
): Promise<CallToolResult | InputRequiredResult> {
  const info = options.info;
  if (!info) throw new Error(`upstream ${upstream} is in process and needs the caller's call`);
  const ctx = options.forward ?? forwardContext.getStore();
  const abort = new AbortController();
  const caller = info.signal;
  const onAbort = () => abort.abort(caller.reason);
  caller.addEventListener('abort', onAbort, { once: true });
  const { traceparent: _, ...rest } = info;
  const call: CallInfo = {
    ...rest,
    token: ctx ? ctx.token : info.token,
    requestId: ctx?.requestId ?? info.requestId,
    signal: abort.signal,
    ...(ctx?.traceparent ? { traceparent: ctx.traceparent } : {}),
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    // One promise settled by whichever comes first, the backend's answer or the timeout.
    return await new Promise<CallToolResult | InputRequiredResult>((resolve, reject) => {
      timer = setTimeout(() => {
        const err = new Error(`Request timed out after ${timeoutMs} ms`);
        abort.abort(err);
        reject(err);
      }, timeoutMs);
      backend.callTool(name, args, call).then(resolve, reject);
    });
  } catch (err) {
    // Over HTTP the service's endpoint turns this into its input request; in process, here.
    if (err instanceof InputRequiredSignal) return err.result();
    throw err;
  } finally {
    clearTimeout(timer);
    caller.removeEventListener('abort', onAbort);
  }
}
