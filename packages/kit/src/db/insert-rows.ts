import { Param, SQL, StringChunk } from 'drizzle-orm';
import type { Transaction } from './index.js';

export type RowValue = string | number | null | Buffer;

/**
 * A multi-row INSERT for bulk writes (ingest), through drizzle's public `SQL` type. `suffix` is
 * appended as is (`on conflict …`, `returning …`).
 *
 * Rows of text, null and safe integers (an ingest's rows) go to SQLite as one JSON parameter,
 * expanded by `json_each` (`insert … select value->>0, … from json_each(?)`), so that drizzle
 * builds three SQL pieces instead of one parameter a value (BENCHMARKS.md, "Ingest writes").
 * Other rows (blobs, fractions) take the flat form, one parameter a value. Both store the same
 * values: the JSON form turns lone UTF-16 surrogates into U+FFFD, as binding a string does
 * (SQLite would otherwise store them as invalid UTF-8, which libsql cannot read back).
 */
export async function insertRows(
  tx: Transaction,
  table: string,
  columns: string[],
  rows: RowValue[][],
  suffix = '',
): Promise<void> {
  if (!rows.length) return;
  await tx.run(rowsInsert(table, columns, rows, suffix));
}

/**
 * `insertRows` with a `returning …` clause (`returning`, e.g. `'id, position'`): the rows it
 * gives back, as the database returns them (column names, no drizzle mapping).
 */
export async function insertRowsReturning<T>(
  tx: Transaction,
  table: string,
  columns: string[],
  rows: RowValue[][],
  returning: string,
): Promise<T[]> {
  if (!rows.length) return [];
  return tx.all<T>(rowsInsert(table, columns, rows, `returning ${returning}`));
}

function rowsInsert(table: string, columns: string[], rows: RowValue[][], suffix: string): SQL {
  return jsonable(rows) ? jsonInsert(table, columns, rows, suffix) : flatInsert(table, columns, rows, suffix);
}

/** Every value survives a JSON round trip through SQLite unchanged (text, null, safe integers). */
function jsonable(rows: RowValue[][]): boolean {
  for (const row of rows)
    for (const v of row)
      if (v !== null && typeof v !== 'string' && !(typeof v === 'number' && Number.isSafeInteger(v)))
        return false;
  return true;
}

// A lone surrogate, as JSON.stringify escapes it (paired ones it writes as they are), not
// itself behind an escaped backslash.
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/** The rows as one JSON array of arrays, lone surrogates replaced (see `insertRows`). */
export function rowsJson(rows: RowValue[][]): string {
  const json = JSON.stringify(rows);
  return json.includes('\\ud') ? json.replace(LONE_SURROGATE, '$1\\ufffd') : json;
}

function jsonInsert(table: string, columns: string[], rows: RowValue[][], suffix: string): SQL {
  const values = columns.map((_, c) => `value->>${c}`).join(', ');
  // `where true`: an upsert's ON CONFLICT must not parse as a join constraint of the SELECT.
  return new SQL([
    new StringChunk(`insert into ${table} (${columns.join(', ')}) select ${values} from json_each(`),
    new Param(rowsJson(rows)),
    new StringChunk(`) where true ${suffix}`),
  ]);
}

function flatInsert(table: string, columns: string[], rows: RowValue[][], suffix: string): SQL {
  const chunks: Array<StringChunk | Param> = [];
  let text = `insert into ${table} (${columns.join(', ')}) values `;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    text += r === 0 ? '(' : ', (';
    for (let c = 0; c < row.length; c++) {
      if (c > 0) text += ', ';
      chunks.push(new StringChunk(text), new Param(row[c]));
      text = '';
    }
    text += ')';
  }
  chunks.push(new StringChunk(`${text} ${suffix}`));
  return new SQL(chunks);
}
