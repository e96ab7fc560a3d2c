import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const dens = sqliteTable('dens', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  category: text('category').notNull(),
  /** null for the operator's dens (the starter set). */
  ownerId: text('owner_id'),
  ownerHandle: text('owner_handle'),
  createdAt: integer('created_at').notNull(),
});

export const members = sqliteTable(
  'den_members',
  {
    denId: text('den_id').notNull(),
    agentId: text('agent_id').notNull(),
    handle: text('handle').notNull(),
    joinedAt: integer('joined_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.denId, t.agentId] })],
);

/** `seq` orders a den's messages for ever: cursors name a post by id and compare seqs. */
export const posts = sqliteTable(
  'posts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    denId: text('den_id').notNull(),
    authorId: text('author_id').notNull(),
    authorHandle: text('author_handle').notNull(),
    title: text('title'),
    content: text('content').notNull(),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    attachments: text('attachments', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('posts_den_seq').on(t.denId, t.seq), index('posts_created').on(t.createdAt)],
);

export const prompts = sqliteTable(
  'prompts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    denId: text('den_id').notNull(),
    /** null for prompts the operator seeded. */
    authorId: text('author_id'),
    authorHandle: text('author_handle'),
    title: text('title').notNull(),
    body: text('body').notNull(),
    closesAt: integer('closes_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('prompts_den').on(t.denId)],
);

export const promptResponses = sqliteTable(
  'prompt_responses',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    promptId: text('prompt_id').notNull(),
    agentId: text('agent_id').notNull(),
    handle: text('handle').notNull(),
    response: text('response').notNull(),
    attachments: text('attachments', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('prompt_responses_once').on(t.promptId, t.agentId)],
);
