// temp microbench: flat drizzle SQL vs JSON parameter through json_each
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertRows, insertRowsReturning, openDatabase } from '@lore/kit';
import { sql } from 'drizzle-orm';

const N = 10000;
const text = 'lorem ipsum dolor sit amet '.repeat(25);
const rows = Array.from({ length: N }, (_, i) => ['src-' + (i >> 7), 'agent-1', i, '["a","b"]', text + i, 120, null]);
const cols = ['source_id', 'agent_id', 'position', 'heading_path', 'text', 'length', 'embedding'];
const ddl = `create table chunks (id integer primary key autoincrement not null, source_id text not null, agent_id text not null, position integer not null, heading_path text not null, text text not null, length integer not null, embedding blob);
create virtual table chunks_fts using fts5(agent, terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`;

async function run(kind: string): Promise<number> {
  const db = await openDatabase({ url: `file:${join(mkdtempSync(join(tmpdir(), 'ip-')), 'x.db')}`, schema: {} });
  await db.$client.executeMultiple(ddl);
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i += 100) {
    if (kind === 'direct') {
      const part = rows.slice(i, i + 100);
      const tx = await db.$client.transaction('write');
      const r = await tx.execute({ sql: `insert into chunks (${cols.join(', ')}) values ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')} returning id, position`, args: part.flat() as never });
      await tx.execute({ sql: `insert into chunks_fts (rowid, agent, terms) values ${part.map(() => '(?, ?, ?)').join(', ')}`, args: r.rows.flatMap((x) => [Number(x.id), 'tok', text]) });
      await tx.commit();
      continue;
    }
    const part = rows.slice(i, i + 100);
    await db.transaction(async (tx) => {
      if (kind === 'flat') {
        const ins = await insertRowsReturning<{ id: number; position: number }>(tx, 'chunks', cols, part, 'id, position');
        await insertRows(tx, 'chunks_fts', ['rowid', 'agent', 'terms'], ins.map((r) => [Number(r.id), 'tok', text]));
      } else {
        const json = JSON.stringify(part);
        const ins = await tx.all<{ id: number; position: number }>(
          sql`insert into chunks (source_id, agent_id, position, heading_path, text, length, embedding) select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6 from json_each(${json}) returning id, position`,
        );
        const fts = JSON.stringify(ins.map((r) => [Number(r.id), 'tok', text]));
        await tx.run(sql`insert into chunks_fts (rowid, agent, terms) select value->>0, value->>1, value->>2 from json_each(${fts})`);
      }
    });
  }
  const c = process.cpuUsage(c0);
  db.$client.close();
  return (c.user + c.system) / N;
}
for (let r = 0; r < 4; r++) for (const k of ['flat', 'json', 'direct']) console.log(k, (await run(k)).toFixed(1), 'µs/row');
