import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
// The driver over the local client alone (the default entry imports every libSQL client).
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { isRemote, LoreClient, localPath } from './adapter.js';
import type { PreparedReads } from './prepared.js';

// biome-ignore lint/suspicious/noExplicitAny: services bring their own schema types.
export type Database<S extends Record<string, unknown> = any> = LibSQLDatabase<S> & { $client: LoreClient };
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

/**
 * Connections in the pool of an on-disk database. The local driver runs every statement
 * synchronously on the calling thread, so a connection is only ever held across an await by an
 * open read transaction; more connections buy no parallelism, and each costs a page cache and
 * three file handles (eight databases in the all-in-one). Writes take the separate writer.
 */
const READ_CONNECTIONS = 2;

/** Opens a service's libSQL database and brings it to the latest schema (kit tables + the service's own). */
export async function openDatabase<S extends Record<string, unknown>>(
  opts: OpenDatabaseOptions<S>,
): Promise<Database<S>> {
  const path = localPath(opts.url);
  if (path !== undefined) mkdirSync(dirname(resolve(path)), { recursive: true });
  const client = new LoreClient({
    url: opts.url,
    ...(opts.authToken ? { authToken: opts.authToken } : {}),
    connections: READ_CONNECTIONS,
    ...(isRemote(opts.url) ? { createRemote: (await import('@libsql/client')).createClient } : {}),
  });
  if (path !== undefined) {
    // WAL lets readers run beside the one writer.
    await client.execute('PRAGMA journal_mode = WAL');
    // Every pooled connection gets the pragma up front: each concurrent execute borrows its own.
    await Promise.all(
      Array.from({ length: READ_CONNECTIONS }, () => client.execute('PRAGMA synchronous = NORMAL')),
    );
  }
  const db = drizzle(client, { schema: opts.schema }) as Database<S>;
  const kitFolder = await kitMigrations();
  await migrateRacing.execute(() =>
    migrate(db, { migrationsFolder: kitFolder, migrationsTable: '__lore_kit_migrations' }),
  );
  const own = opts.migrationsFolder;
  if (own) await migrateRacing.execute(() => migrate(db, { migrationsFolder: own }));
  return db;
}

/**
 * Replicas of a service that start together on an empty database (one libSQL server, or one
 * file) race to migrate it. drizzle applies the pending migrations and records them in one
 * batch, so the loser's batch fails whole (its tables exist, or the lock was taken); run again,
 * it finds them recorded and does nothing. A failure that persists is a real one.
 */
const migrateRacing = retry(handleAll, {
  maxAttempts: 4,
  backoff: new ExponentialBackoff({ initialDelay: 10, maxDelay: 200 }),
});

/** The statements a service prepares once for its per-call reads (see prepared.ts). */
export const preparedReads = (db: Database): PreparedReads => db.$client.reads;

async function kitMigrations(): Promise<string> {
  const { existsSync } = await import('node:fs');
  return existsSync(KIT_MIGRATIONS) ? KIT_MIGRATIONS : KIT_MIGRATIONS_DIST;
}

/** A package's migrations folder, from its `import.meta.url` (works from src/ and dist/). */
export const migrationsFolder = (moduleUrl: string) => fileURLToPath(new URL('../migrations', moduleUrl));

export { ADAPTED_VERSIONS, isBusy, isRemote, LoreClient, localPath } from './adapter.js';
export { insertRows, insertRowsReturning, type RowValue } from './insert-rows.js';
export { inbox, indexVersions, outbox } from './kit-tables.js';
export {
  type PreparedReadStats,
  PreparedReads,
  preparedSelect,
  type RawRow,
  type ReadArg,
  tableReader,
} from './prepared.js';
export { type IndexRebuild, rebuildInBackground, rebuildIndex } from './rebuild-index.js';
