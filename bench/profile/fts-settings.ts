/**
 * CPU of writing the knowledge ingest's rows (chunks and their FTS rows, one transaction a
 * source, as `SourceIngestor` does) under FTS5 and WAL settings, alternated:
 * `npx tsx --conditions=development bench/profile/fts-settings.ts [sources] [rounds]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertRows, insertRowsReturning, openDatabase } from '@lore/kit';
import { prepareSource } from '../../packages/knowledge/src/domain/prepare-source.js';
import { Corpus } from '../corpus.js';

const n = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 3);
const corpus = new Corpus(1234);
const prepared = await Promise.all(
  Array.from({ length: n }, (_, s) => prepareSource(corpus.markdown(corpus.topic(s), 100), 'markdown', 256)),
);
const chunks = prepared.reduce((k, p) => k + p.pieces.length, 0);
const DDL = `create table chunks (id integer primary key autoincrement not null, source_id text not null,
  agent_id text not null, position integer not null, heading_path text not null, text text not null,
  length integer not null, embedding blob);
create index chunks_source on chunks (source_id); create index chunks_agent on chunks (agent_id);
create virtual table chunks_fts using fts5(agent, terms, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2');`;

const variants: Record<string, string[]> = {
  default: [],
  'automerge 8': [`insert into chunks_fts (chunks_fts, rank) values ('automerge', 8)`],
  'pgsz 8000': [`insert into chunks_fts (chunks_fts, rank) values ('pgsz', 8000)`],
  'wal_autocheckpoint 10000': ['PRAGMA wal_autocheckpoint = 10000'],
  'cache_size 8 MiB': ['PRAGMA cache_size = -8192'],
  'crisismerge 64': [`insert into chunks_fts (chunks_fts, rank) values ('crisismerge', 64)`],
};
const chosen = process.argv[4] ? process.argv[4].split(',') : Object.keys(variants);

async function run(setup: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'fts-settings-'));
  const db = await openDatabase({ url: `file:${join(dir, 'k.db')}`, schema: {} });
  await db.$client.executeMultiple(DDL);
  // Pragmas apply to the writer connection: run them in a write turn.
  await db.transaction(async (tx) => {
    for (const s of setup) await tx.run(s.startsWith('PRAGMA') ? `select 1` : s);
  });
  for (const s of setup) if (s.startsWith('PRAGMA')) await db.$client.batch([s]);
  const c0 = process.cpuUsage();
  for (let s = 0; s < n; s++) {
    const { pieces, terms } = prepared[s]!;
    await db.transaction(async (tx) => {
      const ids = await insertRowsReturning<{ id: number; position: number }>(
        tx,
        'chunks',
        ['source_id', 'agent_id', 'position', 'heading_path', 'text', 'length', 'embedding'],
        pieces.map((p, k) => [`s${s}`, 'a1', p.index, JSON.stringify(p.headingPath), p.text, terms[k]!.length, null]),
        'id, position',
      );
      const at = new Map(ids.map((r) => [Number(r.position), Number(r.id)]));
      await insertRows(tx, 'chunks_fts', ['rowid', 'agent', 'terms'], pieces.map((p, k) => [at.get(p.index)!, 'tok', terms[k]!]));
    });
  }
  const c = process.cpuUsage(c0);
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
  return (c.user + c.system) / chunks;
}

for (let r = 0; r < rounds; r++)
  for (const v of chosen) console.log(`${v}: ${(await run(variants[v]!)).toFixed(1)} µs/chunk`);
