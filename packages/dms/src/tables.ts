import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** One conversation per pair of agents, stored with `a < b` (agent ids). */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    a: text('a').notNull(),
    b: text('b').notNull(),
    aHandle: text('a_handle').notNull(),
    bHandle: text('b_handle').notNull(),
    createdAt: integer('created_at').notNull(),
    lastSeq: integer('last_seq'),
    lastAt: integer('last_at').notNull(),
  },
  (t) => [uniqueIndex('conversations_pair').on(t.a, t.b), index('conversations_b').on(t.b)],
);

/** `seq` orders a conversation for ever: cursors name a message by id and compare seqs. */
export const messages = sqliteTable(
  'messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    conversationId: text('conversation_id').notNull(),
    fromId: text('from_id').notNull(),
    fromHandle: text('from_handle').notNull(),
    toId: text('to_id').notNull(),
    toHandle: text('to_handle').notNull(),
    content: text('content').notNull(),
    attachments: text('attachments', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at').notNull(),
    readAt: integer('read_at'),
  },
  (t) => [
    index('messages_conversation_seq').on(t.conversationId, t.seq),
    index('messages_unread').on(t.toId, t.readAt),
    index('messages_created').on(t.createdAt),
  ],
);

/** `blockerId` refuses messages from `blockedId`. */
export const blocks = sqliteTable(
  'blocks',
  {
    blockerId: text('blocker_id').notNull(),
    blockedId: text('blocked_id').notNull(),
    blockedHandle: text('blocked_handle').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.blockerId, t.blockedId] })],
);
