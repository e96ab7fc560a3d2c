import { createRequire } from 'node:module';
import { type Client, type Config, createClient } from '@libsql/client';

/**
 * Everything Lore needs from @libsql/client and drizzle-orm beyond their public API, in one
 * place, so that a version bump is checked here (adapter.test.ts runs every piece against a
 * file and a libSQL server, and pins the versions it was written for):
 *
 * - which URLs are a local file (a pool of connections, WAL) and which a server (sqld, Turso:
 *   hrana over HTTP or WebSockets, one client, the server holds the lock);
 * - the writer connection's busy timeout (`timeout`, read by the local driver, not typed);
 * - SQLITE_BUSY, as the local driver and the server report it;
 * - the libSQL transaction under a drizzle transaction, for multi-row inserts;
 * - a prepared-statement cache for local connections.
 */

/** The @libsql/client and drizzle-orm versions this adapter was written and tested against. */
export const ADAPTED_VERSIONS = { '@libsql/client': '0.18.0', 'drizzle-orm': '0.45.4' } as const;

/** A local file database (as opposed to memory or a server). */
export function localPath(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  const path = url.slice('file:'.length).split('?')[0]!;
  return path === ':memory:' || url.includes('mode=memory') ? undefined : path;
}

/** A libSQL server (sqld, Turso), reached over hrana: `http(s)://`, `libsql://`, `ws(s)://`. */
export const isRemote = (url: string) => /^(https?|libsql|wss?):\/\//.test(url);

/** A client for reads (a pool of `connections` on a local file; one client for a server). */
export function openClient(url: string, authToken?: string, connections?: number): Client {
  return createClient({
    url,
    ...(authToken ? { authToken } : {}),
    ...(connections && localPath(url) !== undefined ? { concurrency: connections } : {}),
  });
}

/**
 * A local file's own writer connection. `timeout` (ms) is the driver's busy timeout: the local
 * driver passes it to SQLite, though `Config` does not declare it.
 */
export function openWriterClient(url: string, busyTimeoutMs: number): Client {
  return createClient({ url, concurrency: 1, timeout: busyTimeoutMs } as Config);
}

/** SQLITE_BUSY, as the local driver (`code`) or a server (`cause.code`, or the message) reports it. */
export function isBusy(err: unknown): boolean {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (/SQLITE_BUSY/.test(`${e?.code} ${e?.cause?.code}`)) return true;
  return /database is locked|SQLITE_BUSY/.test(`${e?.message ?? ''} ${e?.cause?.message ?? ''}`);
}

/** Anything with a libSQL-style `execute({ sql, args })`. */
export interface RawTransaction {
  execute(stmt: { sql: string; args: Array<string | number | null | Buffer> }): Promise<unknown>;
}

/**
 * The libSQL transaction inside a drizzle libsql transaction (drizzle keeps it at `session.tx`),
 * or undefined with another driver. Statements run on it skip drizzle's per-parameter query
 * building, which costs as much as indexing a row in FTS5 during bulk inserts.
 */
export function rawTransaction(tx: unknown): RawTransaction | undefined {
  const raw = (tx as { session?: { tx?: RawTransaction } })?.session?.tx;
  return raw && typeof raw.execute === 'function' ? raw : undefined;
}

/**
 * Prepared statements kept per connection. @libsql/client prepares every statement it runs
 * afresh and drops it, and preparing costs more than running the small indexed queries a tool
 * call makes: with this cache one `agent_profile` call takes about a third less CPU. libSQL
 * offers no hook for it, so the cache wraps `prepare` of the driver's `Database` class, the one
 * @libsql/client uses (resolved from its own location, so it is the same module instance).
 *
 * Only statements that finished are reused: a statement that threw (SQLITE_BUSY leaves it
 * pending) is dropped from the cache, never handed out again. Very long SQL (multi-row inserts
 * whose shape varies with the batch) is not cached; those amortise their preparation anyway.
 */
const MAX_STATEMENTS = 256;
const MAX_SQL_CHARS = 4096;

interface Statement {
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown;
  get(...args: unknown[]): unknown;
  iterate(...args: unknown[]): unknown;
}

interface DatabaseClass {
  prototype: {
    prepare(this: object, sql: string): Statement;
    [PATCHED]?: true;
  };
}

const PATCHED = Symbol.for('lore.statementCache');
const CACHE = Symbol('lore.statements');

export interface StatementCacheStats {
  hits: number;
  misses: number;
  dropped: number;
}

export const statementCacheStats: StatementCacheStats = { hits: 0, misses: 0, dropped: 0 };

/** Installs the cache once per process; later calls do nothing. Returns whether it is active. */
export function installStatementCache(): boolean {
  let Database: DatabaseClass;
  try {
    const client = createRequire(import.meta.url).resolve('@libsql/client');
    Database = createRequire(client)('libsql') as DatabaseClass;
  } catch {
    return false;
  }
  const proto = Database.prototype;
  if (proto[PATCHED]) return true;
  if (typeof proto.prepare !== 'function') return false;
  const prepare = proto.prepare;
  proto.prepare = function cachedPrepare(this: object & { [CACHE]?: Map<string, Statement> }, sql: string) {
    if (sql.length > MAX_SQL_CHARS) return prepare.call(this, sql);
    let cache = this[CACHE];
    if (!cache) {
      cache = new Map();
      this[CACHE] = cache;
    }
    const hit = cache.get(sql);
    if (hit) {
      // Most recently used last: the first key is the one to evict.
      cache.delete(sql);
      cache.set(sql, hit);
      statementCacheStats.hits++;
      return hit;
    }
    statementCacheStats.misses++;
    const stmt = guarded(prepare.call(this, sql), () => {
      if (cache.get(sql) === stmt) {
        cache.delete(sql);
        statementCacheStats.dropped++;
      }
    });
    cache.set(sql, stmt);
    if (cache.size > MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
    return stmt;
  };
  proto[PATCHED] = true;
  return true;
}

/** The statement, with every execution dropping it from the cache when it throws. */
function guarded(stmt: Statement, drop: () => void): Statement {
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = stmt[method];
    if (typeof original !== 'function') continue;
    stmt[method] = function (this: Statement, ...args: unknown[]) {
      try {
        return original.apply(this, args);
      } catch (err) {
        drop();
        throw err;
      }
    };
  }
  return stmt;
}
