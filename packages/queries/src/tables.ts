import type { AnswerCitation, AskerProfile, ClosestPassage, ConditionCheck } from '@lore/schema/queries';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Questions asked by agents hosted on this node. */
export const questions = sqliteTable(
  'questions',
  {
    id: text('id').primaryKey(),
    askerId: text('asker_id').notNull(),
    askerHandle: text('asker_handle').notNull(),
    question: text('question').notNull(),
    broadcast: integer('broadcast', { mode: 'boolean' }).notNull(),
    askedAt: integer('asked_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('questions_asker_at').on(t.askerId, t.askedAt)],
);

/** Each peer a question was sent to, and what became of it (the asker's view). */
export const questionPeers = sqliteTable(
  'question_peers',
  {
    questionId: text('question_id').notNull(),
    peerId: text('peer_id').notNull(),
    peerHandle: text('peer_handle').notNull(),
    peerNode: text('peer_node').notNull(),
    /** sent | answered | declined | no-knowledge | undeliverable (expired is derived from the question's expiry). */
    status: text('status').notNull(),
    /** Why the peer is undeliverable, as its node said. */
    reason: text('reason'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.questionId, t.peerId] })],
);

/** Answers received for questions asked here: one per peer, the latest revision. */
export const answers = sqliteTable(
  'answers',
  {
    questionId: text('question_id').notNull(),
    peerId: text('peer_id').notNull(),
    peerHandle: text('peer_handle').notNull(),
    text: text('text').notNull(),
    citations: text('citations', { mode: 'json' }).$type<AnswerCitation[]>().notNull(),
    strategy: text('strategy').notNull(),
    revision: integer('revision').notNull(),
    receivedAt: integer('received_at').notNull(),
    eventId: text('event_id').notNull(),
    writtenByOwner: integer('written_by_owner', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.questionId, t.peerId] })],
);

/** Queries addressed to agents hosted on this node (the recipient's view), with their drafts. */
export const receivedQueries = sqliteTable(
  'received_queries',
  {
    id: text('id').notNull(),
    recipientId: text('recipient_id').notNull(),
    recipientHandle: text('recipient_handle').notNull(),
    askerId: text('asker_id').notNull(),
    askerHandle: text('asker_handle').notNull(),
    askerNode: text('asker_node').notNull(),
    askerProfile: text('asker_profile', { mode: 'json' }).$type<AskerProfile | null>(),
    question: text('question').notNull(),
    /** Asked of the whole network, not by name: dropped, not kept for the owner, when nothing is relevant. */
    broadcast: integer('broadcast', { mode: 'boolean' }).notNull().default(false),
    askedAt: integer('asked_at').notNull(),
    receivedAt: integer('received_at').notNull(),
    /** A lifecycle status (domain/lifecycle.ts): drafting, drafted, pending, held, accepted, rejected, no-knowledge, undeliverable. */
    status: text('status').notNull(),
    draftText: text('draft_text'),
    citations: text('citations', { mode: 'json' }).$type<AnswerCitation[]>().notNull(),
    strategy: text('strategy'),
    edited: integer('edited', { mode: 'boolean' }).notNull().default(false),
    /** The citations of the draft as it was written: what an edit may still draw on. */
    sourceCitations: text('source_citations', { mode: 'json' })
      .$type<AnswerCitation[]>()
      .notNull()
      .default([]),
    /** Edited so that it draws on none of the draft's sources: the owner's own words. */
    writtenByOwner: integer('written_by_owner', { mode: 'boolean' }).notNull().default(false),
    /** Revisions sent to the asker (0 until accepted). */
    revision: integer('revision').notNull().default(0),
    decisionReason: text('decision_reason').notNull(),
    decidedBy: text('decided_by').notNull(),
    decisionCondition: text('decision_condition'),
    decidedAt: integer('decided_at'),
    /** Nothing drafted: the passages of the recipient's knowledge that came closest (null: none kept). Never sent to the asker. */
    closest: text('closest', { mode: 'json' }).$type<ClosestPassage[]>(),
    /** When the recipient's conditions were consulted (null: not yet). */
    evaluatedAt: integer('evaluated_at'),
    /** A step (drafting, evaluation) that could not run: attempts so far, the next, the deadline. */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    retryUntil: integer('retry_until'),
    lastError: text('last_error'),
    /** Bumped by every change of state: a change computed from an older state is not written. */
    version: integer('version').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.recipientId] }),
    index('received_recipient_status').on(t.recipientId, t.status, t.receivedAt),
    index('received_due').on(t.nextAttemptAt),
  ],
);

/**
 * The decision log: every decision on a received query, automatic or manual, one row per
 * `lore.queries.query.decided` event this service emitted (domain/decisions.ts): who or what
 * decided, by which condition, why.
 */
export const decisions = sqliteTable(
  'decisions',
  {
    id: text('id').primaryKey(),
    /** The `query.decided` event this row records (null: imported from a copy's latest decision by migration 0005). */
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
    checks: text('checks', { mode: 'json' }).$type<ConditionCheck[]>().notNull(),
    at: integer('at').notNull(),
  },
  (t) => [
    uniqueIndex('decisions_event').on(t.eventId),
    index('decisions_query').on(t.queryId, t.recipientId, t.at),
    index('decisions_recipient').on(t.recipientId, t.at),
  ],
);
