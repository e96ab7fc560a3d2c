/**
 * CPU of the knowledge ingest's writes, step by step (the chunk rows with RETURNING, their FTS
 * rows, the COMMIT), one transaction a source as `SourceIngestor` writes them, under SQLite and
 * FTS5 settings, alternated: `npx tsx --conditions=development bench/profile/ingest-writes.ts
 * [sources] [rounds] [variant,…]`. A checkpoint the setting put off is counted in the COMMIT's
 * share (run once the sources are written), so a larger `wal_autocheckpoint` is not credited with
 * work it only defers. Each line also gives the wall time a chunk and the COMMIT's wall time
 * (p50, p90, max, mean ms); the page-size variants set `page_size` on the empty file first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@lore/kit';
import { type PreparedPart, streamSource } from '../../packages/knowledge/src/domain/prepare-source.js';
import { Corpus } from '../corpus.js';

// libsql itself (a dependency of the kit), to set the page size on an empty file.
const Sqlite = createRequire(import.meta.resolve('@lore/kit'))('libsql') as new (
  path: string,
) => { exec(sql: string): void; close(): void };
const n = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 2);
const corpus = new Corpus(1234);
/** A source's pieces and terms as the parser thread sends them, gathered. */
async function prepared1(text: string) {
  const parts: PreparedPart[] = [];
  await streamSource(text, 'markdown', 256, (p) => parts.push(p));
  return {
    pieces: parts.flatMap((p) =>
      p.texts.map((t, k) => ({ index: p.start + k, text: t, heading: p.headings[k]! })),
    ),
    terms: parts.flatMap((p) => p.terms),
  };
}
const prepared = await Promise.all(
  Array.from({ length: n }, (_, s) => prepared1(corpus.markdown(corpus.topic(s), 100))),
);
// The knowledge migrations' tables, as far as the ingest writes them.
const DDL = `create table chunks (id integer primary key autoincrement not null, source_id text not null,
  agent_id text not null, position integer not null, heading_path text not null, text text not null,
  length integer not null, embedding blob);
create index chunks_source on chunks (source_id); create index chunks_agent on chunks (agent_id);
create virtual table chunks_fts using fts5(agent, terms, content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2');`;
const fts = (option: string, value: number) =>
  `insert into chunks_fts (chunks_fts, rank) values ('${option}', ${value})`;
const VARIANTS: Record<string, string[]> = {
  default: [],
  'automerge 8': [fts('automerge', 8)],
  'automerge 0 (no merging: how much merging costs)': [fts('automerge', 0)],
  'crisismerge 64': [fts('crisismerge', 64)],
  'pgsz 8000': [fts('pgsz', 8000)],
  'wal_autocheckpoint 4000': ['PRAGMA wal_autocheckpoint = 4000'],
  'wal_autocheckpoint 0 (none: what checkpoints cost the commits)': ['PRAGMA wal_autocheckpoint = 0'],
  'cache_size 8 MiB': ['PRAGMA cache_size = -8192'],
  // Set before the tables are created (see PRE): a page size only takes on an empty database.
  'page_size 8192': [],
  'page_size 16384': [],
};
/** Statements run before the tables are created. */
const PRE: Record<string, string[]> = {
  'page_size 8192': ['PRAGMA page_size = 8192', 'PRAGMA journal_mode = WAL'],
  'page_size 16384': ['PRAGMA page_size = 16384', 'PRAGMA journal_mode = WAL'],
};
const chosen = process.argv[4] ? process.argv[4].split(',') : Object.keys(VARIANTS);
const cpu = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return c.user + c.system;
};

async function run(setup: string[], pre: string[] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ingest-writes-'));
  if (pre.length) {
    // On the empty file, before any connection of the pool opens it.
    const raw = new Sqlite(join(dir, 'k.db'));
    for (const s of pre) raw.exec(s);
    raw.close();
  }
  const db = await openDatabase({ url: `file:${join(dir, 'k.db')}`, schema: {} });
  await db.$client.executeMultiple(DDL);
  // On the writer connection (a batch runs there), where the ingest's writes go.
  for (const s of setup) await db.$client.batch([s]);
  let chunkUs = 0;
  let ftsUs = 0;
  let commitUs = 0;
  let wallMs = 0;
  const commitMs: number[] = [];
  let k = 0;
  for (let s = 0; s < n; s++) {
    const { pieces, terms } = prepared[s]!;
    const w0 = performance.now();
    const tx = await db.$client.transaction('write');
    let c = process.cpuUsage();
    const rows = pieces.map((p, j) => [`s${s}`, 'a1', p.index, p.heading, p.text, terms[j]!.length, null]);
    const ids = await tx.execute({
      sql: `insert into chunks (source_id, agent_id, position, heading_path, text, length, embedding)
        select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6
        from json_each(?) returning id, position`,
      args: [JSON.stringify(rows)],
    });
    chunkUs += cpu(c);
    c = process.cpuUsage();
    await tx.execute({
      sql: `insert into chunks_fts (rowid, agent, terms) select value->>0, value->>1, value->>2 from json_each(?)`,
      args: [JSON.stringify(ids.rows.map((r, j) => [Number(r.id), 'tok', terms[j]!]))],
    });
    ftsUs += cpu(c);
    c = process.cpuUsage();
    const m0 = performance.now();
    await tx.commit();
    commitMs.push(performance.now() - m0);
    commitUs += cpu(c);
    wallMs += performance.now() - w0;
    k += pieces.length;
  }
  const c = process.cpuUsage();
  const w0 = performance.now();
  await db.$client.execute('PRAGMA wal_checkpoint(PASSIVE)');
  commitUs += cpu(c);
  wallMs += performance.now() - w0;
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
  const per = (us: number) => (us / k).toFixed(1);
  commitMs.sort((a, b) => a - b);
  const q = (f: number) =>
    commitMs[Math.min(commitMs.length - 1, Math.floor(f * commitMs.length))]!.toFixed(2);
  return `chunk rows ${per(chunkUs)}, FTS rows ${per(ftsUs)}, COMMIT ${per(commitUs)}, all ${per(chunkUs + ftsUs + commitUs)} µs CPU a chunk; wall ${((wallMs * 1000) / k).toFixed(1)} µs a chunk; COMMIT wall ms p50 ${q(0.5)}, p90 ${q(0.9)}, max ${q(1)}, mean ${(commitMs.reduce((a, b) => a + b, 0) / commitMs.length).toFixed(2)}`;
}

for (let r = 0; r < rounds; r++)
  for (const v of chosen) console.log(`${v}: ${await run(VARIANTS[v]!, PRE[v])}`);
