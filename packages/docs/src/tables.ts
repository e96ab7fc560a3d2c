import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * One document of the corpus. `name` is `documents/<host>/<path without extension>`;
 * `content` is Markdown; `update_time` (ms) moves only when the content hash changes.
 */
export const documents = sqliteTable(
  'documents',
  {
    name: text('name').primaryKey(),
    uri: text('uri').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    content: text('content').notNull(),
    dataSource: text('data_source').notNull(),
    contentHash: text('content_hash').notNull(),
    updateTime: integer('update_time').notNull(),
  },
  (t) => [
    index('documents_source').on(t.dataSource),
    index('documents_uri').on(t.uri),
    index('documents_update_time').on(t.updateTime),
  ],
);

/**
 * A searchable piece of a document. `id` is also the rowid of its `chunks_fts` row (see the
 * hand-written migration); `vector` is a little-endian float32 embedding, filled in the
 * background after an ingest (see `ChunkVectors`), tagged with its model.
 */
export const chunks = sqliteTable(
  'chunks',
  {
    id: integer('id').primaryKey(),
    document: text('document').notNull(),
    ordinal: integer('ordinal').notNull(),
    headingPath: text('heading_path', { mode: 'json' }).$type<string[]>().notNull(),
    text: text('text').notNull(),
    vector: blob('vector', { mode: 'buffer' }),
    /** The model (and version) `vector` came from; another model's vector is stale. */
    vectorModel: text('vector_model'),
  },
  (t) => [uniqueIndex('chunks_document_ordinal').on(t.document, t.ordinal)],
);

/** Small bookkeeping values: `generation` moves on every corpus change (vector caches follow it). */
export const docsMeta = sqliteTable('docs_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});
