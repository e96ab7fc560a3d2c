/**
 * CPU a row of the knowledge ingest's writes (a chunk row with RETURNING, then its FTS row, 100
 * rows a transaction) three ways, alternated: the flat form (one parameter a value, drizzle's
 * `SQL`), the JSON form (`insertRows` today: one parameter, `json_each`), and the same flat SQL
 * straight through the libSQL client. `npx tsx --conditions=development bench/profile/insert-paths.ts`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertRows, insertRowsReturning, openDatabase, type RowValue } from '@lore/kit';

const N = 10_000;
const text = 'lorem ipsum dolor sit amet '.repeat(25);
const cols = ['source_id', 'agent_id', 'position', 'heading_path', 'text', 'length', 'embedding'];
const DDL = `create table chunks (id integer primary key autoincrement not null, source_id text not null,
  agent_id text not null, position integer not null, heading_path text not null, text text not null,
  length integer not null, embedding blob);
create virtual table chunks_fts using fts5(agent, terms, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2')`;
const rows: RowValue[][] = Array.from({ length: N }, (_, i) => [
  `src-${i >> 7}`,
  'agent-1',
  i,
  '["a","b"]',
  text + i,
  120,
  null,
]);
// A fraction in every row sends insertRows the flat way (one parameter a value).
const flatRows: RowValue[][] = rows.map((r) => [...r.slice(0, 5), 120.5, null]);

async function run(kind: 'flat' | 'json' | 'client'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'insert-paths-'));
  const db = await openDatabase({ url: `file:${join(dir, 'x.db')}`, schema: {} });
  await db.$client.executeMultiple(DDL);
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i += 100) {
    if (kind === 'client') {
      const part = flatRows.slice(i, i + 100);
      const tx = await db.$client.transaction('write');
      const r = await tx.execute({
        sql: `insert into chunks (${cols.join(', ')}) values ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')} returning id, position`,
        args: part.flat(),
      });
      await tx.execute({
        sql: `insert into chunks_fts (rowid, agent, terms) values ${part.map(() => '(?, ?, ?)').join(', ')}`,
        args: r.rows.flatMap((x) => [Number(x.id), 'tok', text]),
      });
      await tx.commit();
      continue;
    }
    const part = (kind === 'flat' ? flatRows : rows).slice(i, i + 100);
    await db.transaction(async (tx) => {
      const ids = await insertRowsReturning<{ id: number }>(tx, 'chunks', cols, part, 'id, position');
      const fts: RowValue[][] = ids.map((r) => [Number(r.id), 'tok', text]);
      // The FTS rows take the same form as the chunk rows (a blob sends them the flat way).
      if (kind === 'flat') fts.push([N + i, Buffer.from('tok'), 'x']);
      await insertRows(tx, 'chunks_fts', ['rowid', 'agent', 'terms'], fts);
    });
  }
  const c = process.cpuUsage(c0);
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
  return (c.user + c.system) / N;
}

for (let r = 0; r < 4; r++)
  for (const k of ['flat', 'json', 'client'] as const)
    console.log(`${k}: ${(await run(k)).toFixed(1)} µs a row`);
