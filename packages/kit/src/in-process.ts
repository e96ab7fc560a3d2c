type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that calls an app's handler directly: no socket, same HTTP semantics. The client's
 * long-lived abort signal is linked per request and unlinked when the answer is in, because
 * handing it to every `new Request` leaves a listener behind each time.
 */
export function inProcessFetch(app: { fetch: (request: Request) => Response | Promise<Response> }): Fetch {
  return async (url, init) => {
    const outer = init?.signal;
    if (!outer) return app.fetch(new Request(url, init));
    if (outer.aborted) throw outer.reason ?? new DOMException('aborted', 'AbortError');
    const inner = new AbortController();
    const onAbort = () => inner.abort(outer.reason);
    outer.addEventListener('abort', onAbort, { once: true });
    try {
      return await app.fetch(new Request(url, { ...init, signal: inner.signal }));
    } finally {
      outer.removeEventListener('abort', onAbort);
    }
  };
}
