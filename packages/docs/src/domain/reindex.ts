import { type Database, insertRows, type Transaction } from '@lore/kit';
import { sql } from 'drizzle-orm';
import { FTS_VERSION, ftsRow, inList, parseHeading, ROWS_PER_INSERT } from './store-rows.js';
import { bumpGeneration } from './store-writes.js';

/** Chunks rewritten per transaction (one multi-row insert): searches and ingests get in between. */
export const REINDEX_BATCH = ROWS_PER_INSERT;

export interface ReindexOptions {
  batch?: number;
  /** Stops between batches; the next start goes on from the last batch written. */
  signal?: AbortSignal;
}

/**
 * Rewrites the FTS rows of every chunk when the index was written by an older `ftsRow` (or
 * emptied by a migration: `docs_meta.fts_version` is not `FTS_VERSION`). The index is
 * contentless, so this is the only way to change what it holds.
 *
 * Runs in batches of chunks by id, each one transaction that deletes the batch's FTS rows and
 * writes them again and records how far it got (`fts_reindexed_to`), so it can run beside
 * searches and ingests (an ingest writes its own rows in the new form; rewriting them again is
 * harmless) and goes on from there after a restart. Sets `fts_version` when every chunk is done,
 * and moves the corpus generation on so that term counts cached on the partial index are dropped.
 * Returns how many chunks it rewrote; 0 when the index was current.
 */
export async function reindexChunks(db: Database, opts: ReindexOptions = {}): Promise<number> {
  const meta = new Map(
    (
      await db.all<{ key: string; value: string }>(
        sql`select key, value from docs_meta where key in ('fts_version', 'fts_reindexed_to')`,
      )
    ).map((r) => [r.key, r.value]),
  );
  if (meta.get('fts_version') === FTS_VERSION) return 0;
  const batch = Math.min(ROWS_PER_INSERT, Math.max(1, opts.batch ?? REINDEX_BATCH));
  let after = Number(meta.get('fts_reindexed_to') ?? 0);
  let rewritten = 0;
  for (;;) {
    if (opts.signal?.aborted) return rewritten;
    const done = await db.transaction(async (tx) => {
      const part = await tx.all<{
        id: number;
        heading: string;
        text: string;
        title: string;
        uri: string;
      }>(sql`
        select c.id as id, c.heading_path as heading, c.text as text, d.title as title, d.uri as uri
        from chunks c cross join documents d on d.name = c.document
        where c.id > ${after} order by c.id limit ${batch}`);
      if (!part.length) {
        await setMeta(tx, 'fts_version', FTS_VERSION);
        // Searches cache term counts per generation: those counted on the partial index go.
        await bumpGeneration(tx);
        await tx.run(sql`delete from docs_meta where key = 'fts_reindexed_to'`);
        return true;
      }
      const ids = part.map((r) => Number(r.id));
      await tx.run(sql`delete from chunks_fts where rowid in ${inList(ids)}`);
      await insertRows(
        tx,
        'chunks_fts',
        ['rowid', 'text', 'title', 'heading'],
        part.map((r) => ftsRow(Number(r.id), r, { headingPath: parseHeading(r.heading), text: r.text })),
      );
      after = ids[ids.length - 1]!;
      await setMeta(tx, 'fts_reindexed_to', String(after));
      rewritten += part.length;
      return false;
    });
    if (done) return rewritten;
    // Let waiting searches and writes run between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function setMeta(tx: Transaction, key: string, value: string): Promise<void> {
  await tx.run(sql`insert into docs_meta (key, value) values (${key}, ${value})
    on conflict(key) do update set value = excluded.value`);
}
