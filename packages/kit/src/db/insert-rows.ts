import { sql } from 'drizzle-orm';
import { rawTransaction } from './adapter.js';
import type { Transaction } from './index.js';

export type RowValue = string | number | null | Buffer;

/**
 * A multi-row INSERT for bulk writes (ingest), on the libSQL transaction under drizzle's
 * (see the adapter), which skips drizzle's per-parameter query building (about 15 µs a row).
 * Without it (another driver), the same SQL goes through drizzle. `suffix` is appended as is (`on conflict …`, `returning …`).
 */
export async function insertRows(
  tx: Transaction,
  table: string,
  columns: string[],
  rows: RowValue[][],
  suffix = '',
): Promise<void> {
  if (!rows.length) return;
  const raw = rawTransaction(tx);
  const head = `insert into ${table} (${columns.join(', ')}) values `;
  if (raw) {
    const one = `(${columns.map(() => '?').join(', ')})`;
    await raw.execute({ sql: `${head}${rows.map(() => one).join(', ')} ${suffix}`, args: rows.flat() });
    return;
  }
  await tx.run(
    sql`${sql.raw(head)}${sql.join(
      rows.map(
        (r) =>
          sql`(${sql.join(
            r.map((v) => sql`${v}`),
            sql`, `,
          )})`,
      ),
      sql`, `,
    )} ${sql.raw(suffix)}`,
  );
}
