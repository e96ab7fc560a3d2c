import { type Database, insertRows, type Transaction } from '@lore/kit/db';
import { float32ToBuffer } from '@lore/search';
import { sql } from 'drizzle-orm';
import { chunks } from '../tables.js';
import type { DocumentWrite } from './store.js';
import { ftsRow, inList, ROWS_PER_INSERT, slices, titleStems } from './store-rows.js';

/** The write side of the docs tables; `DocsStore` runs these in its callers' transactions. */

/** Writes documents and their chunks (FTS rows too), replacing older versions, in the caller's transaction. */
export async function writeDocuments(tx: Transaction, docs: DocumentWrite[]): Promise<number> {
  if (!docs.length) return 0;
  const replaced = docs.filter((d) => d.replaces).map((d) => d.name);
  if (replaced.length) await deleteChunks(tx, replaced);
  for (const part of slices(docs, Math.floor(ROWS_PER_INSERT / 2))) {
    await insertRows(
      tx,
      'documents',
      ['name', 'uri', 'title', 'description', 'content', 'data_source', 'content_hash', 'update_time'],
      part.map((d) => [
        d.name,
        d.uri,
        d.title,
        d.description,
        d.content,
        d.dataSource,
        d.contentHash,
        d.updateTime,
      ]),
      `on conflict(name) do update set uri = excluded.uri, title = excluded.title, description = excluded.description,
        content = excluded.content, data_source = excluded.data_source, content_hash = excluded.content_hash,
        update_time = excluded.update_time`,
    );
  }
  const rows = docs.flatMap((doc) => doc.chunks.map((chunk) => ({ doc, chunk })));
  // A document's title and path stems are the same in all its chunks' rows: computed once.
  const titles = new Map<DocumentWrite, string>();
  const titleOf = (doc: DocumentWrite) => {
    let t = titles.get(doc);
    if (t === undefined) {
      t = titleStems(doc);
      titles.set(doc, t);
    }
    return t;
  };
  for (const part of slices(rows, ROWS_PER_INSERT)) {
    // A chunk's FTS row shares its id, which SQLite assigns: RETURNING hands it back.
    const inserted = await tx
      .insert(chunks)
      .values(
        part.map(({ doc, chunk }) => ({
          document: doc.name,
          ordinal: chunk.ordinal,
          headingPath: chunk.headingPath,
          text: chunk.text,
          vector: chunk.vector ? float32ToBuffer(chunk.vector) : null,
        })),
      )
      .returning({ id: chunks.id, document: chunks.document, ordinal: chunks.ordinal });
    const ids = new Map(inserted.map((r) => [`${r.ordinal} ${r.document}`, r.id]));
    await insertRows(
      tx,
      'chunks_fts',
      ['rowid', 'text', 'title', 'heading'],
      part.map(({ doc, chunk }) => ftsRow(ids.get(`${chunk.ordinal} ${doc.name}`)!, titleOf(doc), chunk)),
    );
  }
  return rows.length;
}

/** Removes documents with their chunks, in the caller's transaction. */
export async function removeDocuments(tx: Transaction, names: string[]): Promise<void> {
  if (!names.length) return;
  await deleteChunks(tx, names);
  for (const part of slices(names, ROWS_PER_INSERT)) {
    await tx.run(sql`delete from documents where name in ${inList(part)}`);
  }
}

async function deleteChunks(tx: Transaction, names: string[]) {
  for (const part of slices(names, ROWS_PER_INSERT)) {
    await tx.run(
      sql`delete from chunks_fts where rowid in (select id from chunks where document in ${inList(part)})`,
    );
    await tx.run(sql`delete from chunks where document in ${inList(part)}`);
  }
}

/** Moves the corpus generation on (caches of term counts and vectors reload when it changes). */
export async function bumpGeneration(tx: Transaction): Promise<void> {
  await tx.run(sql`insert into docs_meta (key, value) values ('generation', '1')
    on conflict(key) do update set value = cast(cast(value as integer) + 1 as text)`);
}

/**
 * One step of merging the FTS index's segments into one, in its own write transaction: FTS5's
 * `merge` command with a negative page count, which gathers every segment into one level and
 * merges about `pages` leaf pages of it (an `optimize` in steps; a later step goes on where this
 * one stopped). Whether it did any work: when not, the index is one segment. The command itself
 * counts as one change, so work shows as two or more (`total_changes()` on the connection).
 */
export async function mergeIndexStep(db: Database, pages: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const changes = async () =>
      Number((await tx.all<{ n: number }>(sql`select total_changes() as n`))[0]?.n ?? 0);
    const before = await changes();
    await tx.run(sql`insert into chunks_fts(chunks_fts, rank) values ('merge', ${-Math.max(1, pages)})`);
    return (await changes()) - before >= 2;
  });
}
