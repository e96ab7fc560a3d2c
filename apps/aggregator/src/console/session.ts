import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { CONSOLE_SESSION_MAX_AGE_MS, CONSOLE_SESSIONS_BUCKET, type NatsBus } from '@lore/kit/bus';
import type { KV } from '@nats-io/kv';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export interface ConsoleAgent {
  id: string;
  handle: string;
  node: string;
}

export interface ConsoleSession {
  /** The opaque random id the cookie holds: nothing else about the session is in the browser. */
  id: string;
  /** The agent's API key, kept server-side (encrypted at rest) to call the tools as that agent. */
  key: string;
  agent: ConsoleAgent;
  csrf: string;
  createdAt: number;
  /** When the session was last used (idle timeout). */
  seenAt: number;
}

/**
 * Where sessions live, by the hash of their id: a map in one process, or a NATS KV bucket every
 * replica shares. Values are already encrypted when they get here.
 */
export interface SessionBackend {
  get(hash: string): Promise<string | undefined>;
  put(hash: string, value: string): Promise<void>;
  delete(hash: string): Promise<void>;
  close?(): Promise<void>;
}

export const MAX_AGE_MS = CONSOLE_SESSION_MAX_AGE_MS;
export const IDLE_MS = 30 * 60 * 1000;
/** A session's last use is written back at most this often (a page load is many requests). */
const TOUCH_MS = 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const IV = 12;
const TAG = 16;
const ID = /^[A-Za-z0-9_-]{43}$/;

export const token = () => randomBytes(32).toString('base64url');

/** Sessions of one process (the all-in-one, or an aggregator without NATS). */
export class MemorySessions implements SessionBackend {
  private readonly entries = new Map<string, { value: string; at: number }>();
  constructor(private readonly now: () => number = Date.now) {}
  async get(hash: string) {
    const e = this.entries.get(hash);
    if (e && this.now() - e.at > MAX_AGE_MS) this.entries.delete(hash);
    return this.entries.get(hash)?.value;
  }
  async put(hash: string, value: string) {
    if (this.entries.size > 10_000) {
      const t = this.now();
      for (const [k, e] of this.entries) if (t - e.at > MAX_AGE_MS) this.entries.delete(k);
    }
    this.entries.set(hash, { value, at: this.now() });
  }
  async delete(hash: string) {
    this.entries.delete(hash);
  }
}

export const SESSIONS_BUCKET = CONSOLE_SESSIONS_BUCKET;

/**
 * Sessions in a JetStream KV bucket (one entry per session, expiring 12 hours after its last
 * write): every replica of the aggregator reads the same sessions, and a restarted replica
 * finds them again.
 */
export class KvSessions implements SessionBackend {
  private kv: Promise<KV> | undefined;
  constructor(
    private readonly nc: NatsBus['connection'],
    private readonly replicas = 1,
    private readonly bucket = SESSIONS_BUCKET,
  ) {}
  private open(): Promise<KV> {
    // The KV client is loaded with the first bucket: an aggregator without NATS never loads it.
    this.kv ??= import('@lore/kit/nats')
      .then(({ openBucket }) =>
        openBucket(this.nc, this.bucket, { ttlMs: MAX_AGE_MS, replicas: this.replicas }),
      )
      .catch((err) => {
        this.kv = undefined;
        throw err;
      });
    return this.kv;
  }
  async get(hash: string) {
    const e = await (await this.open()).get(hash);
    return e && e.operation === 'PUT' ? e.string() : undefined;
  }
  async put(hash: string, value: string) {
    await (await this.open()).put(hash, value);
  }
  async delete(hash: string) {
    // Purge, not delete: nothing of the session (not even a tombstone's history) is kept.
    await (await this.open()).purge(hash);
  }
}

/**
 * Console sessions, kept server-side. The browser's cookie holds only a random 256-bit id; the
 * store keys the session by an HMAC of that id (a reader of the store cannot turn an entry back
 * into a cookie) and keeps its content (the agent's key, the CSRF token, the times) sealed with
 * AES-256-GCM under a key derived from the console secret, bound to that entry. Expiry (12 h from
 * sign-in) and the idle timeout are checked here on every use; sign-out deletes the entry, so
 * the cookie is refused by every replica that shares the store.
 */
export class SessionStore {
  private readonly sealKey: Buffer;
  private readonly idKey: Buffer;

  constructor(
    secret: string | Buffer,
    readonly backend: SessionBackend = new MemorySessions(),
    private readonly now: () => number = Date.now,
    private readonly idleMs = IDLE_MS,
  ) {
    this.sealKey = Buffer.from(hkdfSync('sha256', secret, 'lore-console', 'session content v2', 32));
    this.idKey = Buffer.from(hkdfSync('sha256', secret, 'lore-console', 'session id v2', 32));
  }

  private hash(id: string): string {
    return createHmac('sha256', this.idKey).update(id).digest('hex');
  }

  private seal(hash: string, body: Omit<ConsoleSession, 'id'>): string {
    const iv = randomBytes(IV);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(hash));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64');
  }

  private open(hash: string, value: string): Omit<ConsoleSession, 'id'> | undefined {
    const raw = Buffer.from(value, 'base64');
    if (raw.length <= IV + TAG) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, IV));
      decipher.setAAD(Buffer.from(hash));
      decipher.setAuthTag(raw.subarray(raw.length - TAG));
      const text = Buffer.concat([decipher.update(raw.subarray(IV, raw.length - TAG)), decipher.final()]);
      return JSON.parse(text.toString('utf8')) as Omit<ConsoleSession, 'id'>;
    } catch {
      // Sealed under another secret, or moved from another entry.
      return undefined;
    }
  }

  async create(key: string, agent: ConsoleAgent): Promise<ConsoleSession> {
    const t = this.now();
    const id = token();
    const body = { key, agent, csrf: token(), createdAt: t, seenAt: t };
    const hash = this.hash(id);
    await this.backend.put(hash, this.seal(hash, body));
    return { id, ...body };
  }

  /**
   * The live session a cookie names, or undefined (unknown, signed out, expired or idle too long).
   * A use moves its idle timeout on, unless `touch` is false (a background check is not a use).
   */
  async get(id: string | undefined, touch = true): Promise<ConsoleSession | undefined> {
    if (!id || !ID.test(id)) return undefined;
    const hash = this.hash(id);
    const value = await this.backend.get(hash);
    const body = value ? this.open(hash, value) : undefined;
    if (!body) return undefined;
    const t = this.now();
    if (t - body.createdAt > MAX_AGE_MS || t - body.seenAt > this.idleMs || body.createdAt > t + 60_000) {
      await this.backend.delete(hash).catch(() => {});
      return undefined;
    }
    if (touch && t - body.seenAt > TOUCH_MS) {
      body.seenAt = t;
      await this.backend.put(hash, this.seal(hash, body));
    }
    return { id, ...body };
  }

  async drop(id: string): Promise<void> {
    if (ID.test(id)) await this.backend.delete(this.hash(id));
  }

  async close(): Promise<void> {
    await this.backend.close?.();
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
