import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Events written in the same transaction as the rows that caused them; the relay publishes them. */
export const outbox = sqliteTable(
  'lore_outbox',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    subject: text('subject').notNull(),
    envelope: text('envelope').notNull(),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [index('lore_outbox_unsent').on(t.seq).where(sql`sent_at is null`)],
);

/** Events a consumer has already applied: the other half of exactly-once effects. */
export const inbox = sqliteTable(
  'lore_inbox',
  {
    consumer: text('consumer').notNull(),
    eventId: text('event_id').notNull(),
    handledAt: integer('handled_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.consumer, t.eventId] })],
);

/**
 * What each derived index of a service (an FTS table of stemmed text…) was written with, so that
 * a start with other code rewrites it (`rebuildIndex`). `version` is set once a rewrite is
 * complete; while one runs, `target` is the version it writes and `after` the last row it did.
 */
export const indexVersions = sqliteTable('lore_index_versions', {
  name: text('name').primaryKey(),
  version: text('version'),
  target: text('target'),
  after: integer('after').notNull().default(0),
});
