import { type Database, insertRows, rebuildIndex, type Transaction } from '@lore/kit/db';
import { sql } from 'drizzle-orm';
import { FTS_VERSION, ftsRow, inList, parseHeading, ROWS_PER_INSERT, titleStems } from './store-rows.js';
import { bumpGeneration } from './store-writes.js';

/** Chunks rewritten per transaction (one multi-row insert): searches and ingests get in between. */
export const REINDEX_BATCH = ROWS_PER_INSERT;

export interface ReindexOptions {
  batch?: number;
  /** Stops between batches; the next start goes on from the last batch written. */
  signal?: AbortSignal;
}

/**
 * Rewrites the FTS rows of every chunk when the index was written by an older `ftsRow` or
 * another stemmer, or emptied by a migration: the version the kit's `rebuildIndex` recorded for
 * `chunks_fts` (in `lore_index_versions`) is not `FTS_VERSION`, which carries @lore/search's
 * `STEMMER_VERSION`. The index is contentless, so this is the only way to change what it holds.
 *
 * Runs in batches of chunks by id, each one transaction that deletes the batch's FTS rows and
 * writes them again and records how far it got, so it can run beside searches and ingests (an
 * ingest writes its own rows in the new form; rewriting them again is harmless) and goes on from
 * there after a restart. When every chunk is done it records the version and moves the corpus
 * generation on, so that term counts cached on the partial index are dropped. Returns how many
 * chunks it rewrote; 0 when the index was current.
 */
export async function reindexChunks(db: Database, opts: ReindexOptions = {}): Promise<number> {
  return rebuildIndex(db, {
    name: 'chunks_fts',
    version: FTS_VERSION,
    batch: Math.min(ROWS_PER_INSERT, opts.batch ?? REINDEX_BATCH),
    ...(opts.signal ? { signal: opts.signal } : {}),
    rewrite: rewriteChunks,
    // Searches cache term counts per generation: those counted on the partial index go.
    finish: bumpGeneration,
  });
}

async function rewriteChunks(tx: Transaction, after: number, limit: number) {
  const part = await tx.all<{ id: number; heading: string; text: string; title: string; uri: string }>(sql`
    select c.id as id, c.heading_path as heading, c.text as text, d.title as title, d.uri as uri
    from chunks c cross join documents d on d.name = c.document
    where c.id > ${after} order by c.id limit ${limit}`);
  if (!part.length) return null;
  const ids = part.map((r) => Number(r.id));
  const title = new Map<string, string>();
  await tx.run(sql`delete from chunks_fts where rowid in ${inList(ids)}`);
  await insertRows(
    tx,
    'chunks_fts',
    ['rowid', 'text', 'title', 'heading'],
    part.map((r) => {
      title.set(r.uri, title.get(r.uri) ?? titleStems(r));
      return ftsRow(Number(r.id), title.get(r.uri)!, { headingPath: parseHeading(r.heading), text: r.text });
    }),
  );
  return { last: ids[ids.length - 1]!, rows: part.length };
}
