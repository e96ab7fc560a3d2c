import type { Client, InValue } from '@libsql/client';
import { type Column, fillPlaceholders, getTableColumns, getTableName, type Table } from 'drizzle-orm';
import Libsql from 'libsql';
import { LRUCache } from 'lru-cache';

export type ReadArg = string | number | bigint | null | Buffer;
export type RawRow = Record<string, unknown>;

/**
 * A libsql statement, always handed its arguments as one array: libsql takes a lone object
 * argument (a Buffer too) for named parameters, and its native side aborts the process on a blob
 * there.
 */
interface Statement {
  all(args: ReadArg[]): unknown[];
  get(args: ReadArg[]): unknown;
  raw(raw?: boolean): Statement;
}

export interface PreparedReadStats {
  hits: number;
  misses: number;
  /** Statements dropped because a run threw (a statement that failed is never handed out again). */
  dropped: number;
}

/** Statements kept per database; the hot reads of a service are a handful. */
const MAX_STATEMENTS = 128;

/**
 * The per-call reads of a service, prepared once and run again. @libsql/client prepares every
 * statement it runs afresh and drops it, which costs more than running the small indexed
 * queries a tool call makes, and drizzle's query builders add as much again. On a local file the
 * reads run on a read-only connection of their own (libsql's better-sqlite3 API), with its
 * statements kept by SQL text; WAL lets it read beside the writer and see every commit. On a
 * server the SQL goes over hrana, where the server does its own caching.
 */
export class PreparedReads {
  readonly stats: PreparedReadStats = { hits: 0, misses: 0, dropped: 0 };
  #connection: InstanceType<typeof Libsql> | undefined;
  /** Statements by SQL text, one cache for each of `get`, `all` and `values` (see `#run`). */
  readonly #statements = {
    get: new LRUCache<string, Statement>({ max: MAX_STATEMENTS }),
    all: new LRUCache<string, Statement>({ max: MAX_STATEMENTS }),
    values: new LRUCache<string, Statement>({ max: MAX_STATEMENTS }),
    rows: new LRUCache<string, Statement>({ max: MAX_STATEMENTS }),
  };

  constructor(
    private readonly client: Client,
    private readonly path: string | undefined,
  ) {}

  /** Every row the SELECT returns, keyed by column name. */
  async all(sql: string, args: ReadArg[] = []): Promise<RawRow[]> {
    if (this.path === undefined) {
      const rs = await this.client.execute({ sql, args: args as InValue[] });
      return rs.rows.map((row) => Object.fromEntries(rs.columns.map((c, i) => [c, row[i]])));
    }
    return this.#run('all', sql, (s) => s.all(args) as RawRow[]);
  }

  /** The first row the SELECT returns, if any. */
  async get(sql: string, args: ReadArg[] = []): Promise<RawRow | undefined> {
    if (this.path === undefined) return (await this.all(sql, args))[0];
    return this.#run('get', sql, (s) => s.get(args) as RawRow | undefined);
  }

  /**
   * The first row the SELECT returns, if any, as its values in the order of the SELECT list. On
   * a local file the statement runs in libsql's raw mode: no object with a property per column
   * is built for the row, which is most of what a one-row read of many columns costs
   * (BENCHMARKS.md, "The profile read in one statement").
   */
  async values(sql: string, args: ReadArg[] = []): Promise<unknown[] | undefined> {
    if (this.path === undefined) {
      const rs = await this.client.execute({ sql, args: args as InValue[] });
      const row = rs.rows[0];
      return row && Array.from({ length: rs.columns.length }, (_, i) => row[i]);
    }
    return this.#run('values', sql, (s) => s.get(args) as unknown[] | undefined);
  }

  /** Every row the SELECT returns, each as its values in the order of the SELECT list (raw mode). */
  async rows(sql: string, args: ReadArg[] = []): Promise<ArrayLike<unknown>[]> {
    if (this.path === undefined) return (await this.client.execute({ sql, args: args as InValue[] })).rows;
    return this.#run('rows', sql, (s) => s.all(args) as unknown[][]);
  }

  /**
   * A number that changes whenever another connection commits to the database (SQLite's
   * `PRAGMA data_version` on the read connection, which never writes), so that what a caller
   * read can be kept until then. Undefined over hrana, where there is no such signal.
   */
  async dataVersion(): Promise<number | undefined> {
    if (this.path === undefined) return undefined;
    return this.#run('get', 'pragma data_version', (s) => Number((s.get([]) as RawRow).data_version));
  }

  close(): void {
    this.#statements.get.clear();
    this.#statements.all.clear();
    this.#statements.values.clear();
    this.#statements.rows.clear();
    this.#connection?.close();
    this.#connection = undefined;
  }

  /**
   * Runs `sql` on its statement for `mode`. A statement serves one mode only: libsql's `get` after
   * an `all` (or an unfinished `iterate`) of the same statement returns that earlier run's first
   * row, whatever the new arguments; and raw mode (`values`) is a setting of the statement.
   */
  #run<T>(mode: 'get' | 'all' | 'values' | 'rows', sql: string, run: (s: Statement) => T): T {
    const statements = this.#statements[mode];
    let stmt = statements.get(sql);
    if (stmt) this.stats.hits++;
    else {
      this.stats.misses++;
      this.#connection ??= new Libsql(this.path!, { readonly: true });
      stmt = this.#connection.prepare<ReadArg[]>(sql) as unknown as Statement;
      if (mode === 'values' || mode === 'rows') stmt.raw(true);
      statements.set(sql, stmt);
    }
    try {
      return run(stmt);
    } catch (err) {
      statements.delete(sql);
      this.stats.dropped++;
      throw err;
    }
  }
}

/**
 * A table's SELECT list and the mapping of its raw rows to drizzle's row type, so that prepared
 * reads return what the query builders would (JSON columns parsed, names in camelCase).
 */
export function tableReader<T extends Table>(
  table: T,
): {
  select: string;
  row(raw: RawRow): T['$inferSelect'];
  /** The row from values in the order of `select` (PreparedReads.values), starting at `start`. */
  fromValues(values: readonly unknown[], start?: number): T['$inferSelect'];
} {
  const columns = Object.entries(getTableColumns(table)) as Array<[string, Column]>;
  const select = `select ${columns.map(([, c]) => `"${c.name}"`).join(', ')} from "${getTableName(table)}"`;
  return {
    select,
    row(raw) {
      const out: Record<string, unknown> = {};
      for (const [key, col] of columns) {
        const v = raw[col.name];
        out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
      }
      return out as T['$inferSelect'];
    },
    fromValues(values, start = 0) {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        const [key, col] = columns[i]!;
        const v = values[start + i];
        out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
      }
      return out as T['$inferSelect'];
    },
  };
}

/** What `preparedSelect` uses of a drizzle prepared select (drizzle's SQLitePreparedQuery). */
interface DrizzlePreparedSelect {
  getQuery(): { sql: string; params: unknown[] };
  mapGetResult(rows: unknown): unknown;
  mapAllResult(rows: unknown): unknown;
}

type Placeholders = Record<string, unknown>;

/**
 * A drizzle prepared select (`db.select()….prepare()`, placeholders by `sql.placeholder`) run on
 * the service's prepared reads: drizzle's SQL, drizzle's placeholder filling and drizzle's own
 * row mapping (`mapGetResult`, `mapAllResult`), so `get` and `all` return exactly what the
 * prepared query's would, but on a statement kept by SQL text instead of one that
 * @libsql/client prepares afresh for every run (bench `reads`; prepared.test.ts compares the two).
 */
export function preparedSelect<
  P extends { get(values?: Placeholders): Promise<unknown>; all(values?: Placeholders): Promise<unknown> },
>(reads: PreparedReads, prepared: P): Pick<P, 'get' | 'all'> {
  const drizzle = prepared as unknown as DrizzlePreparedSelect;
  const { sql, params } = drizzle.getQuery();
  const args = (values: Placeholders | undefined) => fillPlaceholders(params, values ?? {}) as ReadArg[];
  const get = async (values?: Placeholders) => {
    const row = await reads.values(sql, args(values));
    return drizzle.mapGetResult(row ? [row] : []);
  };
  const all = async (values?: Placeholders) => drizzle.mapAllResult(await reads.rows(sql, args(values)));
  return { get, all } as Pick<P, 'get' | 'all'>;
}
