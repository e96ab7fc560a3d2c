import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export interface ConsoleAgent {
  id: string;
  handle: string;
  node: string;
}

export interface ConsoleSession {
  id: string;
  /** The agent's API key: held here, in the server's memory, and never sent to the browser. */
  key: string;
  agent: ConsoleAgent;
  csrf: string;
  createdAt: number;
  lastSeen: number;
}

const IDLE_MS = 2 * 60 * 60 * 1000;
const MAX_AGE_MS = 12 * 60 * 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export const token = () => randomBytes(32).toString('base64url');

/** Sessions live in this process only: a restart signs everyone out, which is the safe default. */
export class SessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(private readonly now: () => number = Date.now) {}

  create(key: string, agent: ConsoleAgent): ConsoleSession {
    this.sweep();
    const t = this.now();
    const s: ConsoleSession = { id: token(), key, agent, csrf: token(), createdAt: t, lastSeen: t };
    this.sessions.set(s.id, s);
    return s;
  }

  get(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (t - s.lastSeen > IDLE_MS || t - s.createdAt > MAX_AGE_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    s.lastSeen = t;
    return s;
  }

  drop(id: string): void {
    this.sessions.delete(id);
  }

  private sweep() {
    const t = this.now();
    for (const [id, s] of this.sessions)
      if (t - s.lastSeen > IDLE_MS || t - s.createdAt > MAX_AGE_MS) this.sessions.delete(id);
  }
}

/** Secure cookies everywhere but on loopback, where browsers accept them over plain http anyway only for localhost. */
export function isLoopback(c: Context): boolean {
  const host = new URL(c.req.url).hostname;
  return LOOPBACK.has(host) || LOOPBACK.has(`[${host}]`);
}

const SESSION = 'lore_console';
const PRE = 'lore_console_pre';

function cookieOptions(c: Context) {
  return {
    path: '/console',
    httpOnly: true,
    sameSite: 'Strict' as const,
    secure: !isLoopback(c),
  };
}

export function sessionId(c: Context): string | undefined {
  return getCookie(c, SESSION);
}

export function setSessionCookie(c: Context, s: ConsoleSession) {
  setCookie(c, SESSION, s.id, { ...cookieOptions(c), maxAge: MAX_AGE_MS / 1000 });
  deleteCookie(c, PRE, { path: '/console' });
}

export function clearSessionCookie(c: Context) {
  deleteCookie(c, SESSION, { path: '/console', secure: !isLoopback(c) });
}

/**
 * The sign-in form has no session yet: its CSRF token is a random value in a strict cookie that
 * the form echoes (double submit), so another site cannot sign a browser in with its own key.
 */
export function preSessionToken(c: Context): string {
  const existing = getCookie(c, PRE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const t = token();
  setCookie(c, PRE, t, { ...cookieOptions(c), maxAge: 3600 });
  return t;
}

export function preSessionCookie(c: Context): string | undefined {
  return getCookie(c, PRE);
}

export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The same rule as `/mcp` plus one: a state-changing request must say where it comes from, and
 * that must be this very host (the Host header itself is checked against the allowed hosts by
 * the server in front).
 */
export function originAllowed(c: Context, allowedHosts: string[] | undefined): boolean {
  const origin = c.req.header('origin');
  if (!origin || origin === 'null') return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  const host = c.req.header('host');
  if (!host || o.host !== host) return false;
  if (allowedHosts && !allowedHosts.includes(o.hostname) && !allowedHosts.includes(`[${o.hostname}]`))
    return false;
  return true;
}
