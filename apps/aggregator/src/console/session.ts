import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export interface ConsoleAgent {
  id: string;
  handle: string;
  node: string;
}

export interface ConsoleSession {
  /** The sealed cookie value itself. */
  id: string;
  /** The agent's API key: sealed inside the cookie, readable only by a process that holds the secret. */
  key: string;
  agent: ConsoleAgent;
  csrf: string;
  createdAt: number;
}

const MAX_AGE_MS = 12 * 60 * 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const IV = 12;
const TAG = 16;

export const token = () => randomBytes(32).toString('base64url');

/**
 * Sessions are sealed into the cookie (AES-256-GCM under a key derived from the console secret),
 * so any process that holds the secret (every replica of the aggregator) accepts a session
 * another one issued, and none keeps session state. The browser holds only ciphertext in an
 * HttpOnly cookie: neither page scripts nor the owner can read the key back out of it.
 * Sign-out deletes the cookie and revokes it in this process; a copy of it stays usable on other
 * replicas until it expires (12 hours) or the key is rotated, which ends every session at once.
 */
export class SessionStore {
  private readonly key: Buffer;
  private readonly revoked = new Map<string, number>();

  constructor(
    secret: string | Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'lore-console', 'session cookie v1', 32));
  }

  create(key: string, agent: ConsoleAgent): ConsoleSession {
    const body = { key, agent, csrf: token(), createdAt: this.now() };
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
    const id = Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
    return { id, ...body };
  }

  get(id: string | undefined): ConsoleSession | undefined {
    if (!id || id.length > 4096 || this.revoked.has(id)) return undefined;
    const raw = Buffer.from(id, 'base64url');
    if (raw.length <= IV + TAG) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV));
      decipher.setAuthTag(raw.subarray(raw.length - TAG));
      const text = Buffer.concat([decipher.update(raw.subarray(IV, raw.length - TAG)), decipher.final()]);
      const body = JSON.parse(text.toString('utf8')) as Omit<ConsoleSession, 'id'>;
      if (this.now() - body.createdAt > MAX_AGE_MS || body.createdAt > this.now() + 60_000) return undefined;
      return { id, ...body };
    } catch {
      // Tampered with, sealed under another secret, or not a session at all.
      return undefined;
    }
  }

  drop(id: string): void {
    const t = this.now();
    for (const [k, at] of this.revoked) if (t - at > MAX_AGE_MS) this.revoked.delete(k);
    this.revoked.set(id, t);
  }
}

/** The sealing secret: the configured one, else one derived from this node's private key. */
export function consoleSecret(configured: string | undefined, nodePrivateKey: string): string | Buffer {
  return configured ?? Buffer.from(hkdfSync('sha256', nodePrivateKey, 'lore-console', 'console secret', 32));
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
