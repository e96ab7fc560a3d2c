/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono, MiddlewareHandler } from 'hono';
import { Hono as HonoApp } from 'hono';
import { asset } from './assets.js';
import { type ConsoleDeps, type ConsoleEnv, formOf } from './context.js';
import { Jobs } from './jobs.js';
import { Csrf, Flash, Page } from './layout.js';
import { registerAsked } from './pages/asked.js';
import { registerCommunity } from './pages/community.js';
import { registerConditions } from './pages/conditions.js';
import { registerCorpora } from './pages/corpora.js';
import { registerInbox } from './pages/inbox.js';
import { registerKnowledge } from './pages/knowledge.js';
import { registerNetwork } from './pages/network.js';
import {
  clearSessionCookie,
  originAllowed,
  preSessionCookie,
  preSessionToken,
  sameToken,
  sessionId,
  setSessionCookie,
} from './session.js';
import { SignInThrottle } from './throttle.js';

export type { ConsoleDeps } from './context.js';

const SAFE = new Set(['GET', 'HEAD']);

/** No inline script or style, no framing, no third-party anything: the console needs none. */
const headers: MiddlewareHandler = async (c, next) => {
  await next();
  c.header(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  );
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  // `same-origin`, not `no-referrer`: with no referrer at all Chromium sends `Origin: null` on form posts.
  c.header('Referrer-Policy', 'same-origin');
  if (!c.req.path.startsWith('/console/assets/')) c.header('Cache-Control', 'no-store');
};

function signInPage(token: string, error?: string) {
  return (
    <Page title="Sign in">
      <Flash error={error} />
      <form method="post" action="/console/sign-in" class="stack narrow">
        <Csrf token={token} />
        <label for="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="off"
          required
          placeholder="lore_sk_…"
          aria-describedby="key-help"
        />
        <p id="key-help" class="small muted">
          The owner key is in <code>owner.key</code> in the data directory; any agent may sign in with its own
          key. Your browser keeps only a random session id in a script-proof cookie: the key stays on the
          server.
        </p>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </Page>
  );
}

/** The owner's console at `/console`: sign-in, then the pages, every action through the catalog's tools. */
export function mountConsole(app: Hono, deps: ConsoleDeps): void {
  const con = new HonoApp<ConsoleEnv>();
  const throttle = new SignInThrottle();
  con.use('*', headers);

  con.get('/assets/:name', (c) => {
    const a = asset(c.req.param('name'));
    if (!a) return c.notFound();
    return c.body(a.body, 200, { 'content-type': a.type, 'cache-control': 'public, max-age=3600' });
  });

  con.get('/sign-in', async (c) => {
    if (await deps.sessions.get(sessionId(c)).catch(() => undefined))
      return c.redirect('/console/inbox', 303);
    return c.html(signInPage(preSessionToken(c), c.req.query('error')));
  });

  con.post('/sign-in', async (c) => {
    if (!originAllowed(c, deps.allowedHosts)) return c.text('Forbidden: cross-origin request', 403);
    const form = await formOf(c);
    if (!sameToken(form._csrf, preSessionCookie(c)))
      return c.text('Forbidden: missing or invalid CSRF token', 403);
    const key = (form.key ?? '').trim();
    const address =
      (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
        ?.remoteAddress ?? 'unknown';
    const wait = throttle.retryAfter(address, key);
    if (wait > 0) {
      deps.log.warn({ ip: address }, 'console sign-in throttled');
      c.header('Retry-After', String(wait));
      return c.html(
        signInPage(
          preSessionToken(c),
          `Too many failed sign-ins from here. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
        ),
        429,
      );
    }
    const agent = key ? await deps.verify(key).catch(() => null) : null;
    if (!agent) {
      throttle.fail(address, key);
      deps.log.info({ ip: address }, 'console sign-in refused');
      return c.html(signInPage(preSessionToken(c), 'That key does not belong to any agent here.'), 401);
    }
    const s = await deps.sessions.create(key, agent);
    setSessionCookie(c, s);
    deps.log.info({ agent: agent.handle }, 'console sign-in');
    return c.redirect('/console/inbox', 303);
  });

  // Everything below needs a session; changes need the session's CSRF token and this host's Origin.
  con.use('*', async (c, next) => {
    let s: Awaited<ReturnType<typeof deps.sessions.get>>;
    try {
      s = await deps.sessions.get(sessionId(c));
    } catch (err) {
      // The session store (NATS) is unreachable: not a verdict on the session, so no sign-out.
      deps.log.warn({ err: (err as Error).message }, 'console session store unavailable');
      return c.text('Service unavailable: sessions cannot be read right now; try again shortly', 503);
    }
    if (!s) {
      if (SAFE.has(c.req.method) && c.req.header('accept')?.includes('text/html'))
        return c.redirect('/console/sign-in', 303);
      return c.text('Unauthorized: sign in first', 401);
    }
    if (!SAFE.has(c.req.method)) {
      if (!originAllowed(c, deps.allowedHosts)) return c.text('Forbidden: cross-origin request', 403);
      const sent =
        c.req.header('x-csrf-token') ?? (await formOf(c).catch(() => ({}) as Record<string, string>))._csrf;
      if (!sameToken(sent, s.csrf)) return c.text('Forbidden: missing or invalid CSRF token', 403);
    }
    // A rotated key ends the session at once (the verification cache drops it on rotation).
    const agent = await deps.verify(s.key).catch(() => undefined);
    if (agent === null) {
      await deps.sessions.drop(s.id).catch(() => {});
      clearSessionCookie(c);
      return c.redirect('/console/sign-in?error=Your+key+is+no+longer+valid', 303);
    }
    c.set('session', s);
    await next();
  });

  con.get('/', (c) => c.redirect('/console/inbox', 303));
  con.post('/sign-out', async (c) => {
    await deps.sessions.drop(c.get('session').id);
    clearSessionCookie(c);
    return c.redirect('/console/sign-in', 303);
  });

  registerInbox(con, deps);
  registerConditions(con, deps);
  registerKnowledge(con, deps);
  registerAsked(con, deps);
  registerNetwork(con, deps);
  registerCorpora(con, deps, new Jobs());
  registerCommunity(con, deps);
  app.route('/console', con);
}
