import { type CallInfo, InputRequiredSignal, type McpBackend } from '@lore/kit';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/client';
import { forwardContext } from './context.js';
import { deadlines } from './deadlines.js';
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
  // The backend's signal (the caller's, or the timeout's) is built only if the backend asks for
  // it: most calls never do, and a controller with a listener on the caller costs more than the
  // rest of this function. Asked for after the timeout or the caller's abort, it is born aborted.
  let abort: AbortController | undefined;
  let timedOut: Error | undefined;
  const onAbort = () => abort!.abort(info.signal.reason);
  const signal = () => {
    if (!abort) {
      abort = new AbortController();
      const caller = info.signal;
      if (timedOut) abort.abort(timedOut);
      else if (caller.aborted) abort.abort(caller.reason);
      else caller.addEventListener('abort', onAbort, { once: true });
    }
    return abort.signal;
  };
  // Field by field: copying the caller's call with a spread would read its signal. The optional
  // fields are set only when present, each in place (no object per field, as spreads would make).
  const call: CallInfo = {
    token: ctx ? ctx.token : info.token,
    era: info.era,
    requestId: ctx?.requestId ?? info.requestId,
    get signal() {
      return signal();
    },
    sampling: info.sampling,
    progress: info.progress,
  };
  if (ctx?.traceparent) call.traceparent = ctx.traceparent;
  if (info.ip !== undefined) call.ip = info.ip;
  if (info.inputResponses !== undefined) call.inputResponses = info.inputResponses;
  if (info.requestState !== undefined) call.requestState = info.requestState;
  if (info.meta !== undefined) call.meta = info.meta;
  if (info.clientCapabilities !== undefined) call.clientCapabilities = info.clientCapabilities;
  if (info.elicitation !== undefined) call.elicitation = info.elicitation;
  if (info.notify !== undefined) call.notify = info.notify;
  let cancel: (() => void) | undefined;
  try {
    // One promise settled by whichever comes first, the backend's answer or the timeout.
    return await new Promise<CallToolResult | InputRequiredResult>((resolve, reject) => {
      cancel = deadlines.after(timeoutMs, () => {
        timedOut = new Error(`Request timed out after ${timeoutMs} ms`);
        abort?.abort(timedOut);
        reject(timedOut);
      });
      backend.callTool(name, args, call).then(resolve, reject);
    });
  } catch (err) {
    // Over HTTP the service's endpoint turns this into its input request; in process, here.
    if (err instanceof InputRequiredSignal) return err.result();
    throw err;
  } finally {
    cancel?.();
    if (abort) info.signal.removeEventListener('abort', onAbort);
  }
}
