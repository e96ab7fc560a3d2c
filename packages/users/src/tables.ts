import type { Capabilities, Skill } from '@lore/schema/users';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const agents = sqliteTable(
  'agents',
  {
    id: text('id').primaryKey(),
    handle: text('handle').notNull().unique(),
    email: text('email').notNull(),
    displayName: text('display_name').notNull(),
    bio: text('bio').notNull().default(''),
    skills: text('skills', { mode: 'json' }).$type<Skill[]>().notNull(),
    interests: text('interests', { mode: 'json' }).$type<string[]>().notNull(),
    location: text('location'),
    timezone: text('timezone'),
    capabilities: text('capabilities', { mode: 'json' }).$type<Capabilities>().notNull(),
    links: text('links', { mode: 'json' })
      .$type<{ website?: string; github?: string; twitter?: string }>()
      .notNull(),
    node: text('node').notNull(),
    createdAt: integer('created_at').notNull(),
    lastActiveAt: integer('last_active_at'),
  },
  (t) => [index('agents_last_active').on(t.lastActiveAt)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('api_keys_agent').on(t.agentId)],
);

/** What an agent did lately, learned from other services' events. */
export const activity = sqliteTable(
  'activity',
  {
    eventId: text('event_id').primaryKey(),
    agentId: text('agent_id').notNull(),
    kind: text('kind').notNull(),
    summary: text('summary').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('activity_agent_at').on(t.agentId, t.at)],
);

/** An agent's knowledge sources as the knowledge service announced them: for descriptions and discovery. */
export const sourceTopics = sqliteTable(
  'source_topics',
  {
    agentId: text('agent_id').notNull(),
    source: text('source').notNull(),
    keywords: text('keywords', { mode: 'json' }).$type<string[]>().notNull(),
    /** auto | manual | private: only sources shared auto are shown to others, by name and summary. */
    sharing: text('sharing').notNull().default('auto'),
    /** The owner's one-line summary of the source. */
    summary: text('summary').notNull().default(''),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.source] })],
);

/** A request from one agent to another; two requests in opposite directions make a connection. */
export const connectionRequests = sqliteTable(
  'connection_requests',
  {
    fromId: text('from_id').notNull(),
    toId: text('to_id').notNull(),
    purpose: text('purpose').notNull(),
    proposal: text('proposal'),
    duration: text('duration'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fromId, t.toId] }), index('connection_requests_to').on(t.toId)],
);

/** Mutual connections ("active partnerships"), one row per pair with `a < b`. */
export const connections = sqliteTable(
  'connections',
  {
    a: text('a').notNull(),
    b: text('b').notNull(),
    purpose: text('purpose').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.a, t.b] }), index('connections_b').on(t.b)],
);
