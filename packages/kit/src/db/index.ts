import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { installStatementCache, isBusy, localPath, openClient, openWriterClient } from './adapter.js';

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

/** Connections in the read pool of an on-disk database. */
const READ_CONNECTIONS = 8;

/** Opens a service's libSQL database and brings it to the latest schema (kit tables + the service's own). */
export async function openDatabase<S extends Record<string, unknown>>(
  opts: OpenDatabaseOptions<S>,
): Promise<Database<S>> {
  installStatementCache();
  const path = localPath(opts.url);
  const onDisk = path !== undefined;
  if (onDisk) mkdirSync(dirname(resolve(path)), { recursive: true });
  const client = openClient(opts.url, opts.authToken, READ_CONNECTIONS);
  let db: Database<S>;
  if (onDisk) {
    // WAL lets readers run beside the one writer.
    await client.execute('PRAGMA journal_mode = WAL');
    // Every pooled connection gets the pragma up front: each concurrent execute borrows its own.
    await Promise.all(
      Array.from({ length: READ_CONNECTIONS }, () => client.execute('PRAGMA synchronous = NORMAL')),
    );
    db = withWriter(drizzle(client, { schema: opts.schema }) as Database<S>, opts);
  } else {
    // Memory and remote (sqld, Turso) databases: transactions go through the one client.
    db = serializeWrites(drizzle(client, { schema: opts.schema }) as Database<S>);
  }
  const kitFolder = await kitMigrations();
  await migrateRacing(() =>
    migrate(db, { migrationsFolder: kitFolder, migrationsTable: '__lore_kit_migrations' }),
  );
  const own = opts.migrationsFolder;
  if (own) await migrateRacing(() => migrate(db, { migrationsFolder: own }));
  return db;
}

/**
 * Replicas of a service that start together on an empty database (one libSQL server, or one
 * file) race to migrate it. drizzle applies the pending migrations and records them in one
 * batch, so the loser's batch fails whole (its tables exist, or the lock was taken); run again,
 * it finds them recorded and does nothing. A failure that persists is a real one.
 */
async function migrateRacing(run: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= MIGRATE_ATTEMPTS) throw err;
      await backoff(attempt + 2);
    }
  }
}
const MIGRATE_ATTEMPTS = 4;

/**
 * An on-disk database writes through one connection of its own, one transaction at a time;
 * reads use the pool. A transaction that meets another process's write lock (replicas sharing
 * the file) is retried with backoff on a fresh writer connection, because libSQL leaves the
 * refused `BEGIN IMMEDIATE` pending on its connection and every later COMMIT there would fail
 * ("SQL statements in progress"). The busy timeout is short: the wait blocks the event loop.
 */
function withWriter<S extends Record<string, unknown>>(
  db: Database<S>,
  opts: OpenDatabaseOptions<S>,
): Database<S> {
  const open = () => {
    const client = openWriterClient(opts.url, WRITER_BUSY_TIMEOUT_MS);
    return { client, db: drizzle(client, { schema: opts.schema }) as Database<S>, ready: false };
  };
  let writer = open();
  const closeReads = db.$client.close.bind(db.$client);
  db.$client.close = () => {
    writer.client.close();
    closeReads();
  };
  const transact = (async (
    fn: Parameters<Database<S>['transaction']>[0],
    config?: Parameters<Database<S>['transaction']>[1],
  ) => {
    for (let attempt = 0; ; attempt++) {
      if (!writer.ready) {
        await writer.client.execute('PRAGMA synchronous = NORMAL');
        writer.ready = true;
      }
      try {
        return await writer.db.transaction(fn, config);
      } catch (err) {
        if (!isBusy(err) || attempt >= BUSY_ATTEMPTS) throw err;
        writer.client.close();
        writer = open();
        await backoff(attempt);
      }
    }
  }) as Database<S>['transaction'];
  return serializeWrites(db, transact);
}

const WRITER_BUSY_TIMEOUT_MS = 100;
const BUSY_ATTEMPTS = 50;

/**
 * Write transactions of one process take turns (two writers on one file would collide).
 * Every write goes through `transaction`.
 */
function serializeWrites<D extends Database>(db: D, transact?: D['transaction']): D {
  const original = transact ?? (db.transaction.bind(db) as D['transaction']);
  let tail: Promise<unknown> = Promise.resolve();
  const run = ((fn: Parameters<D['transaction']>[0], config?: Parameters<D['transaction']>[1]) => {
    const next = tail.then(() =>
      transact ? original(fn, config) : withBusyRetry(() => original(fn, config)),
    );
    tail = next.catch(() => {});
    return next;
  }) as D['transaction'];
  db.transaction = run;
  return db;
}

const backoff = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random())));

async function withBusyRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isBusy(err) || attempt >= BUSY_ATTEMPTS) throw err;
      await backoff(attempt);
    }
  }
}

async function kitMigrations(): Promise<string> {
  const { existsSync } = await import('node:fs');
  return existsSync(KIT_MIGRATIONS) ? KIT_MIGRATIONS : KIT_MIGRATIONS_DIST;
}

/** A package's migrations folder, from its `import.meta.url` (works from src/ and dist/). */
export const migrationsFolder = (moduleUrl: string) => fileURLToPath(new URL('../migrations', moduleUrl));

export { statementCacheStats } from './adapter.js';
export { insertRows, type RowValue } from './insert-rows.js';
export { inbox, outbox } from './kit-tables.js';
