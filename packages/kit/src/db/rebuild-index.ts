import { sql } from 'drizzle-orm';
import type { Database, Transaction } from './index.js';

/** A derived index (an FTS table of stemmed text…) rewritten from the rows it is built from. */
export interface IndexRebuild {
  /** The index's key in `lore_index_versions` (e.g. `chunks_fts`). */
  name: string;
  /** What the code writes now (e.g. @lore/search's STEMMER_VERSION). */
  version: string;
  /** Source rows per batch (one transaction each). */
  batch: number;
  /**
   * Rewrites the index rows of the next `limit` source rows after `after` (ascending ids):
   * deletes their rows and writes them again. Returns the last id done and how many rows it
   * rewrote, or null when none remain.
   */
  rewrite(tx: Transaction, after: number, limit: number): Promise<{ last: number; rows: number } | null>;
  /** Runs in the transaction that records the new version (e.g. to drop cached statistics). */
  finish?(tx: Transaction): Promise<void>;
  /** Rewrite even when the recorded version is current (the index is known to be incomplete). */
  force?: boolean;
  /** Stops between batches; the next start goes on from the last batch written. */
  signal?: AbortSignal;
}

/**
 * Brings a derived index to `version`: when `lore_index_versions` records another version (or
 * none: a database written before the index was versioned), every source row's index rows are
 * rewritten, in batches by id, each one transaction that also records how far it got, so it runs
 * beside searches and writes (a write indexes its own rows the new way; rewriting them again is
 * harmless) and a restart goes on from there. The version is recorded, with `finish`, when no
 * row is left. Returns how many source rows it rewrote (0 when the index was current).
 */
export async function rebuildIndex(db: Database, r: IndexRebuild): Promise<number> {
  const [row] = await db.all<{ version: string | null; target: string | null; after: number }>(
    sql`select version, target, after from lore_index_versions where name = ${r.name}`,
  );
  if (row?.version === r.version && !r.force) return 0;
  // A rewrite cut short resumes only if it was writing this same version.
  let after = row?.target === r.version && row.version !== r.version ? Number(row.after) : 0;
  await db.run(sql`insert into lore_index_versions (name, version, target, after)
    values (${r.name}, null, ${r.version}, ${after})
    on conflict(name) do update set version = null, target = excluded.target, after = excluded.after`);
  const batch = Math.max(1, r.batch);
  let rewritten = 0;
  for (;;) {
    if (r.signal?.aborted) return rewritten;
    const done = await db.transaction(async (tx) => {
      const part = await r.rewrite(tx, after, batch);
      if (part === null) {
        await tx.run(sql`update lore_index_versions set version = ${r.version}, target = null, after = 0
          where name = ${r.name}`);
        await r.finish?.(tx);
        return true;
      }
      await tx.run(sql`update lore_index_versions set after = ${part.last} where name = ${r.name}`);
      rewritten += part.rows;
      after = part.last;
      return false;
    });
    if (done) return rewritten;
    // Let waiting searches and writes run between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Starts a service's index rebuild (`rebuildIndex` for one index or several) in the background
 * of its start: starting does not wait, and searches find more as it goes. Logs what it rewrote,
 * or why it stopped (the next start resumes). The returned function stops it between batches
 * and waits for it, for the service's stop.
 */
export function rebuildInBackground(
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
  index: string,
  rebuild: (signal: AbortSignal) => Promise<Record<string, number>>,
): () => Promise<void> {
  const stop = new AbortController();
  const running = rebuild(stop.signal).then(
    (rewritten) => {
      if (Object.values(rewritten).some((n) => n > 0)) log.info(rewritten, `${index} rewritten`);
    },
    (err: Error) => log.warn({ err: err.message }, `${index} rewrite failed; next start resumes`),
  );
  return async () => {
    stop.abort();
    await running;
  };
}
