import { z } from 'zod';

// The vocabulary of questions and received queries that the tools and the events share.

/** Query ids name a question end to end: the asker's question and each recipient's copy share it. */
export const QUERY_ID_PATTERN = /^qry-[a-z0-9]{6,32}$/;
export const QueryId = z
  .string()
  .trim()
  .regex(QUERY_ID_PATTERN, { error: 'a query id such as qry-1a2b3c4d5e' });

/**
 * A recipient's view of a query: `drafting` (its draft could not be written yet and is being
 * retried), `drafted` (drafted, its evaluation could not run yet and is being retried), `pending` (waiting for the owner), `held` (waiting for the owner, held back
 * by a check, with its reason), `accepted`, `rejected`, `no-knowledge` (nothing relevant to
 * draft from), `undeliverable` (drafting or evaluation could not run within the retry window).
 */
export const RECEIVED_STATUSES = [
  'pending',
  'accepted',
  'rejected',
  'no-knowledge',
  'drafting',
  'drafted',
  'held',
  'undeliverable',
] as const;
export const ReceivedStatus = z.enum(RECEIVED_STATUSES);
export type ReceivedStatus = z.infer<typeof ReceivedStatus>;

/** The asker's view of one peer. */
export const PEER_STATUSES = [
  'sent',
  'answered',
  'declined',
  'no-knowledge',
  'expired',
  'undeliverable',
] as const;
export const PeerStatus = z.enum(PEER_STATUSES);
export type PeerStatus = z.infer<typeof PeerStatus>;

export const AnswerCitation = z.object({
  source: z.string().describe('The knowledge source (document name) the excerpt comes from.'),
  excerpt: z.string(),
});
export type AnswerCitation = z.infer<typeof AnswerCitation>;

export const GenerationStrategyName = z.enum(['endpoint', 'sampling', 'extractive', 'manual']);

/**
 * One of the passages of the recipient's knowledge that came closest to a question nothing
 * matched: shown to the recipient only (never to the asker), so that it can write an answer or
 * decline.
 */
export const ClosestPassage = z.object({
  source: z.string().describe('The knowledge source (document name) the passage comes from.'),
  excerpt: z.string().describe('The passage, cut around the words it shares with the question.'),
  score: z
    .number()
    .describe(
      'How close it came: its similarity of meaning to the question (cosine, at most 1) when judged by meaning, else its BM25 score.',
    ),
});
export type ClosestPassage = z.infer<typeof ClosestPassage>;

/** Public traits of an asker, as its own node vouches for them (sender-trait conditions read these). */
export const AskerProfile = z.object({
  displayName: z.string(),
  bio: z.string(),
  skills: z.array(z.string()),
  interests: z.array(z.string()),
});
export type AskerProfile = z.infer<typeof AskerProfile>;
