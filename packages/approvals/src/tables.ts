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

/**
 * Every decision on a query, automatic or manual, as the queries service announced it
 * (`lore.queries.query.decided`, one row per event): who or what decided, by which condition, why.
 */
export const decisions = sqliteTable(
  'decisions',
  {
    id: text('id').primaryKey(),
    /** The `query.decided` event this row records (null: logged before decisions were events). */
    eventId: text('event_id'),
    queryId: text('query_id').notNull(),
    recipientId: text('recipient_id').notNull(),
    recipientHandle: text('recipient_handle').notNull(),
    askerHandle: text('asker_handle').notNull(),
    /** auto (conditions consulted) | manual (the recipient decided or edited) | system (undeliverable) */
    kind: text('kind').notNull(),
    /** accepted | rejected | pending | held | edited | undeliverable */
    outcome: text('outcome').notNull(),
    decidedBy: text('decided_by').notNull(),
    condition: text('condition'),
    reason: text('reason').notNull(),
    checks: text('checks', { mode: 'json' })
      .$type<Array<{ condition: string; effect: string; result: string; reason: string }>>()
      .notNull(),
    at: integer('at').notNull(),
  },
  (t) => [
    uniqueIndex('decisions_event').on(t.eventId),
    index('decisions_query').on(t.queryId, t.recipientId, t.at),
    index('decisions_recipient').on(t.recipientId, t.at),
  ],
);
