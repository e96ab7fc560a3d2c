import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Client, createClient } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';

// biome-ignore lint/suspicious/noExplicitAny: services bring their own schema types.
export type Database<S extends Record<string, unknown> = any> = LibSQLDatabase<S> & { $client: Client };
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface OpenDatabaseOptions<S extends Record<string, unknown>> {
  url: string;
  authToken?: string;
  schema: S;
  /** The service's drizzle-kit migrations folder (none: only the kit's tables). */
  migrationsFolder?: string;
}

const KIT_MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const KIT_MIGRATIONS_DIST = fileURLToPath(new URL('../migrations', import.meta.url));

/** Opens a service's libSQL database and brings it to the latest schema (kit tables + the service's own). */
export async function openDatabase<S extends Record<string, unknown>>(
  opts: OpenDatabaseOptions<S>,
): Promise<Database<S>> {
  if (opts.url.startsWith('file:')) {
    const path = opts.url.slice('file:'.length).split('?')[0]!;
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  const client = createClient(
    opts.authToken ? { url: opts.url, authToken: opts.authToken } : { url: opts.url },
  );
  if (opts.url.startsWith('file:')) {
    // WAL lets readers run beside the one writer. No busy_timeout: the native driver would
    // wait synchronously, stalling the event loop that has to finish the other transaction.
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute('PRAGMA synchronous = NORMAL');
  }
  const db = serializeWrites(drizzle(client, { schema: opts.schema }) as Database<S>);
  await migrate(db, { migrationsFolder: await kitMigrations(), migrationsTable: '__lore_kit_migrations' });
  if (opts.migrationsFolder) await migrate(db, { migrationsFolder: opts.migrationsFolder });
  return db;
}

/**
 * Write transactions of one process take turns (libSQL lends each its own connection, and
 * two writers on one file would collide); a transaction that meets another process's lock
 * is retried with backoff. Every write goes through `transaction`.
 */
function serializeWrites<D extends Database>(db: D): D {
  const original = db.transaction.bind(db) as D['transaction'];
  let tail: Promise<unknown> = Promise.resolve();
  const run = ((fn: Parameters<D['transaction']>[0], config?: Parameters<D['transaction']>[1]) => {
    const next = tail.then(() => withBusyRetry(() => original(fn, config)));
    tail = next.catch(() => {});
    return next;
  }) as D['transaction'];
  db.transaction = run;
  return db;
}

async function withBusyRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code =
        (err as { code?: string; cause?: { code?: string } }).code ??
        (err as { cause?: { code?: string } }).cause?.code;
      if (!/SQLITE_BUSY/.test(String(code)) || attempt >= 50) throw err;
      await new Promise((r) =>
        setTimeout(r, Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random())),
      );
    }
  }
}

async function kitMigrations(): Promise<string> {
  const { existsSync } = await import('node:fs');
  return existsSync(KIT_MIGRATIONS) ? KIT_MIGRATIONS : KIT_MIGRATIONS_DIST;
}

/** A package's migrations folder, from its `import.meta.url` (works from src/ and dist/). */
export const migrationsFolder = (moduleUrl: string) => fileURLToPath(new URL('../migrations', moduleUrl));

export { inbox, outbox } from './kit-tables.js';
