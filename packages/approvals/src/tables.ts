import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Interpretation } from './domain/interpret.js';

/** Each agent's auto-approval conditions, in its own words. */
export const conditions = sqliteTable(
  'conditions',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id').notNull(),
    sentence: text('sentence').notNull(),
    /** Lower-cased, whitespace-collapsed: one condition per wording. */
    sentenceKey: text('sentence_key').notNull(),
    effect: text('effect').notNull(),
    /** How the built-in interpreter read it when it was added (what it applies without a model). */
    interpretation: text('interpretation', { mode: 'json' }).$type<Interpretation>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('conditions_agent_sentence').on(t.agentId, t.sentenceKey),
    index('conditions_agent').on(t.agentId, t.createdAt),
  ],
);
