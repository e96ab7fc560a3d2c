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
  await tx.run(new SQL(chunks));
}
