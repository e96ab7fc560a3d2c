import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallInfo } from '@lore/kit';

/** The caller of the tools/call being forwarded: upstream fetches read it to pass identity on. */
export interface ForwardContext {
  token: string | null;
  requestId: string;
  traceparent?: string;
  /** The client's address, passed on as X-Forwarded-For (services trust it from the aggregator only). */
  ip?: string;
  /**
   * Passes an upstream's log message about this call on to the caller: the caller's own
   * notifier, which honours the level it chose (see `CallInfo.notify`).
   */
  notify?: CallInfo['notify'];
}

export const forwardContext = new AsyncLocalStorage<ForwardContext>();

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that adds the current call's request id and trace context, and, for Lore's own
 * services (or upstreams configured to receive it), the caller's Authorization. Any other
 * upstream never sees the caller's key.
 */
export function identityFetch(inner: Fetch, forwardAuthorization: boolean): Fetch {
  return (url, init) => {
    const ctx = forwardContext.getStore();
    if (!ctx) return inner(url, init);
    const headers = new Headers(init?.headers);
    if (forwardAuthorization) {
      if (ctx.token) headers.set('authorization', `Bearer ${ctx.token}`);
      else headers.delete('authorization');
    }
    headers.set('x-request-id', ctx.requestId);
    if (ctx.traceparent) headers.set('traceparent', ctx.traceparent);
    if (ctx.ip) headers.set('x-forwarded-for', ctx.ip);
    else headers.delete('x-forwarded-for');
    return inner(url, { ...init, headers });
  };
}
