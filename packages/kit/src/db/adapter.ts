import type {
  Client,
  Config,
  InArgs,
  InStatement,
  Replicated,
  ResultSet,
  Transaction,
  TransactionMode,
} from '@libsql/client';
// The local driver alone: the hrana (HTTP, WebSocket) clients of a libSQL server are loaded only
// for a server URL (openDatabase passes them as `createRemote`).
import { createClient } from '@libsql/client/sqlite3';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { PreparedReads } from './prepared.js';

/**
 * Everything Lore needs from @libsql/client, libsql and drizzle-orm, in one place and through
 * their public API only, so that a version bump is checked here (adapter.test.ts runs every
 * piece against a file and a libSQL server, and pins the versions it was written for):
 *
 * - which URLs are a local file (a pool of connections, WAL) and which a server (sqld, Turso:
 *   hrana over HTTP or WebSockets, the server holds the lock);
 * - write transactions that take turns within a process and wait out another process's write
 *   lock (SQLITE_BUSY, as the local driver and the server report it);
 * - prepared statements for the hot per-call reads (prepared.ts);
 * - multi-row inserts for bulk writes (insert-rows.ts).
 *
 * drizzle runs on a `LoreClient`, which implements @libsql/client's `Client` interface around
 * the real client; drizzle only ever calls that interface.
 */

/** The versions this adapter was written and tested against. */
export const ADAPTED_VERSIONS = {
  '@libsql/client': '0.18.0',
  libsql: '0.5.29',
  'drizzle-orm': '0.45.4',
} as const;

/** A local file database (as opposed to memory or a server). */
export function localPath(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  const path = url.slice('file:'.length).split('?')[0]!;
  return path === ':memory:' || url.includes('mode=memory') ? undefined : path;
}

/** A libSQL server (sqld, Turso), reached over hrana: `http(s)://`, `libsql://`, `ws(s)://`. */
export const isRemote = (url: string) => /^(https?|libsql|wss?):\/\//.test(url);

/** SQLITE_BUSY, as the local driver (`code`) or a server (`cause.code`, or the message) reports it. */
export function isBusy(err: unknown): boolean {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (/SQLITE_BUSY/.test(`${e?.code} ${e?.cause?.code}`)) return true;
  return /database is locked|SQLITE_BUSY/.test(`${e?.message ?? ''} ${e?.cause?.message ?? ''}`);
}

export interface LoreClientOptions {
  url: string;
  authToken?: string;
  /** Connections in the pool of a local file (ignored elsewhere). */
  connections?: number;
  /**
   * @libsql/client's `createClient`, for a server URL (`isRemote`): openDatabase imports it only
   * then, so processes on local files never load the hrana and WebSocket clients.
   */
  createRemote?: (config: Config) => Client;
  /** Milliseconds without a write after which a local file's writer connection is closed (`WRITER_IDLE_MS`). */
  writerIdleMs?: number;
}

/**
 * How long a local file's writer connection stays open without a write. A connection keeps its
 * page cache (up to 2 MiB, full after an ingest), its schema and its lookaside memory; an idle
 * service writes rarely, and the next write opens one again (a fraction of a millisecond).
 */
export const WRITER_IDLE_MS = 30_000;

/**
 * How long a local connection waits in SQLite for another process's write lock before reporting
 * SQLITE_BUSY. Short: the wait blocks the event loop; longer waits are retried with backoff.
 */
const BUSY_TIMEOUT_MS = 100;
const BUSY_ATTEMPTS = 50;

/**
 * The client a service's database runs on. Write transactions (and batches) of one process take
 * turns, because two writers on one database would only collide; a transaction that meets
 * another process's lock (replicas sharing a file or a server) is begun again after a backoff.
 * The BEGIN is the only place a write transaction waits for the lock (`write` mode is BEGIN
 * IMMEDIATE), so retrying it is safe. `close()` also closes the prepared reads.
 */
export class LoreClient implements Client {
  readonly reads: PreparedReads;
  readonly #inner: Client;
  readonly #url: string;
  readonly #local: boolean;
  readonly #remote: boolean;
  #writer: Client | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  /** Write turns queued or running; the writer is only closed when there are none. */
  #turns = 0;
  #idle: NodeJS.Timeout | undefined;
  readonly #writerIdleMs: number;

  constructor(opts: LoreClientOptions) {
    const path = localPath(opts.url);
    this.#url = opts.url;
    this.#local = path !== undefined;
    this.#remote = isRemote(opts.url);
    const create = this.#remote ? opts.createRemote : createClient;
    if (!create) throw new Error(`LoreClient: ${opts.url} is a libSQL server; pass createRemote`);
    this.#inner = create({
      url: opts.url,
      ...(opts.authToken ? { authToken: opts.authToken } : {}),
      ...(path !== undefined ? { concurrency: opts.connections ?? 1 } : {}),
    } satisfies Config);
    this.reads = new PreparedReads(this.#inner, path);
    this.#writerIdleMs = opts.writerIdleMs ?? WRITER_IDLE_MS;
    if (!(this.#writerIdleMs > 0)) {
      throw new RangeError(`LoreClient: writerIdleMs must be a positive number (got ${opts.writerIdleMs})`);
    }
  }

  /** A local file's writer connection is open (it closes after `writerIdleMs` without a write). */
  get writerOpen(): boolean {
    return this.#writer !== undefined;
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  get protocol(): string {
    return this.#inner.protocol;
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  execute(stmt: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const run = () =>
      typeof stmt === 'string' ? this.#inner.execute(stmt, args) : this.#inner.execute(stmt);
    // A lone statement commits on its own: run again, it is the same statement. The retry policy
    // is only entered once the lock was met, so the common path costs one await.
    return run().catch((err) => {
      if (!isBusy(err)) throw err;
      return retryBusy(run);
    });
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.#inTurn(() => this.#writing((w) => w.batch(stmts, mode ?? 'write')));
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#inTurn(() => this.#writing((w) => w.migrate(stmts)));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#inTurn(() => this.#writing((w) => w.executeMultiple(sql)));
  }

  /**
   * Runs a write on the writer, again after a backoff while another process holds the lock. A
   * local file writes through a connection of its own, opened afresh after SQLITE_BUSY: the
   * local driver leaves the refused BEGIN pending on its connection, and every later COMMIT
   * there would fail ("SQL statements in progress").
   */
  #writing<T>(run: (writer: Client) => Promise<T>): Promise<T> {
    return retryBusy(async () => {
      const writer = await this.#openWriter();
      try {
        return await run(writer);
      } catch (err) {
        if (isBusy(err) && this.#writer === writer) {
          this.#writer = undefined;
          writer.close();
        }
        throw err;
      }
    });
  }

  async #openWriter(): Promise<Client> {
    if (!this.#local) return this.#inner;
    if (this.#writer) return this.#writer;
    const writer = createClient({ url: this.#url, concurrency: 1, timeout: BUSY_TIMEOUT_MS });
    await writer.execute('PRAGMA synchronous = NORMAL');
    this.#writer = writer;
    return writer;
  }

  async transaction(mode: TransactionMode = 'write'): Promise<Transaction> {
    if (mode === 'read') return this.#inner.transaction(mode);
    const previous = this.#tail;
    let release!: () => void;
    this.#turnStarted();
    this.#tail = new Promise<void>((r) => {
      release = () => {
        r();
        this.#turnEnded();
      };
    });
    await previous;
    try {
      const tx = await this.#writing((w) => this.#begin(w, mode));
      return new TurnTransaction(tx, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** A begun transaction. A server begins lazily, with the first statement: make it begin now. */
  async #begin(writer: Client, mode: TransactionMode): Promise<Transaction> {
    const tx = await writer.transaction(mode);
    if (!this.#remote) return tx;
    try {
      await tx.execute('select 1');
      return tx;
    } catch (err) {
      tx.close();
      throw err;
    }
  }

  #inTurn<T>(run: () => Promise<T>): Promise<T> {
    this.#turnStarted();
    const next = this.#tail.then(run).finally(() => this.#turnEnded());
    this.#tail = next.catch(() => {});
    return next;
  }

  #turnStarted(): void {
    this.#turns++;
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** The last write turn ended: close the writer if no other comes within `writerIdleMs`. */
  #turnEnded(): void {
    this.#turns--;
    if (this.#turns > 0 || !this.#writer || !this.#local) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#turns > 0 || !this.#writer) return;
      this.#writer.close();
      this.#writer = undefined;
    }, this.#writerIdleMs);
    this.#idle.unref();
  }

  sync(): Promise<Replicated> {
    return this.#inner.sync();
  }

  reconnect(): void {
    this.#inner.reconnect();
  }

  close(): void {
    clearTimeout(this.#idle);
    this.reads.close();
    this.#writer?.close();
    this.#writer = undefined;
    this.#inner.close();
  }
}

/** A write transaction that gives the turn back when it ends, however it ends. */
class TurnTransaction implements Transaction {
  #released = false;
  constructor(
    private readonly inner: Transaction,
    private readonly release: () => void,
  ) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.inner.execute(stmt);
  }

  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.inner.batch(stmts);
  }

  executeMultiple(sql: string): Promise<void> {
    return this.inner.executeMultiple(sql);
  }

  async commit(): Promise<void> {
    try {
      await this.inner.commit();
    } finally {
      this.#end();
    }
  }

  async rollback(): Promise<void> {
    try {
      await this.inner.rollback();
    } finally {
      this.#end();
    }
  }

  close(): void {
    try {
      this.inner.close();
    } finally {
      this.#end();
    }
  }

  #end(): void {
    if (this.#released) return;
    this.#released = true;
    // A failed COMMIT leaves the transaction open on a server; closing it drops it.
    if (!this.inner.closed) this.inner.close();
    this.release();
  }
}

/** Waits out another writer's lock: short, jittered, growing waits (about 5 s in all at most). */
const busyRetry = retry(handleWhen(isBusy), {
  maxAttempts: BUSY_ATTEMPTS,
  backoff: new ExponentialBackoff({ initialDelay: 5, maxDelay: 200 }),
});

const retryBusy = <T>(run: () => Promise<T>): Promise<T> => busyRetry.execute(run);
