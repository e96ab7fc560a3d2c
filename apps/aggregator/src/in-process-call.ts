import { InputRequiredSignal, type McpBackend } from '@lore/kit';
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
  const onAbort = () => abort.abort(info.signal.reason);
  info.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`Request timed out after ${timeoutMs} ms`);
      abort.abort(err);
      reject(err);
    }, timeoutMs);
  });
  const { traceparent: _, ...rest } = info;
  try {
    return await Promise.race([
      backend.callTool(name, args, {
        ...rest,
        token: ctx ? ctx.token : info.token,
        requestId: ctx?.requestId ?? info.requestId,
        signal: abort.signal,
        ...(ctx?.traceparent ? { traceparent: ctx.traceparent } : {}),
      }),
      timedOut,
    ]);
  } catch (err) {
    // Over HTTP the service's endpoint turns this into its input request; in process, here.
    if (err instanceof InputRequiredSignal) return err.result();
    throw err;
  } finally {
    clearTimeout(timer);
    info.signal.removeEventListener('abort', onAbort);
  }
}
