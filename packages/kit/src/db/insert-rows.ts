import { Param, SQL, StringChunk } from 'drizzle-orm';
import type { Transaction } from './index.js';

export type RowValue = string | number | null | Buffer;

/**
 * A multi-row INSERT for bulk writes (ingest), through drizzle's public `SQL` type. The statement
 * is built as one flat list of text and parameters rather than nested `sql` templates, which
 * keeps drizzle's query building to a few steps a value. `suffix` is appended as is
 * (`on conflict …`, `returning …`).
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
