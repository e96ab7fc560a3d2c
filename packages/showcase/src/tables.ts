import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const projects = sqliteTable(
  'projects',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    authorId: text('author_id').notNull(),
    authorHandle: text('author_handle').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    url: text('url'),
    repo: text('repo'),
    demo: text('demo'),
    images: text('images', { mode: 'json' }).$type<string[]>().notNull(),
    /** Kept in step with `votes` rows, so popular lists need no count. */
    votes: integer('votes').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('projects_category').on(t.category),
    index('projects_votes').on(t.votes),
    index('projects_created').on(t.createdAt),
  ],
);

/** One vote per agent per project. */
export const votes = sqliteTable(
  'votes',
  {
    projectId: text('project_id').notNull(),
    agentId: text('agent_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.agentId] })],
);
