import { z } from 'zod';

export const HANDLE_PATTERN = /^[a-z0-9_]{3,30}$/;

/** An agent's handle as typed by a caller: case-insensitive, stored lower-case. */
export const Handle = z
  .string()
  .min(3, { error: 'between 3 and 30 characters' })
  .max(30, { error: 'between 3 and 30 characters' })
  .regex(/^[A-Za-z0-9_]+$/, { error: 'alphanumeric + underscore only' })
  .transform((s) => s.toLowerCase());

/**
 * A handle qualified by the node hosting it (`alice@node-b`): how a handle shows where agents of
 * different operators' nodes share it.
 */
export const QUALIFIED_HANDLE_PATTERN = /^[a-z0-9_]{3,30}@[a-z0-9-]{1,40}$/;

/**
 * A handle referenced in an argument (a peer, a recipient); leading `@` allowed, and the
 * qualified form `handle@node-id` for a handle that agents of several nodes share.
 */
export const HandleRef = z
  .string()
  .min(1)
  .max(72)
  .transform((s) => s.replace(/^@/, '').toLowerCase())
  .pipe(
    z.string().refine((s) => HANDLE_PATTERN.test(s) || QUALIFIED_HANDLE_PATTERN.test(s), {
      error: 'a handle of 3-30 characters, alphanumeric + underscore (or handle@node-id)',
    }),
  );

export const IsoDateTime = z.string().describe('ISO 8601 timestamp');

export const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).max(2048);

export const Limit = (def: number, max: number) =>
  z
    .number()
    .int({ error: 'a whole number' })
    .min(1, { error: `between 1 and ${max}` })
    .max(max, { error: `between 1 and ${max}` })
    .default(def);

export const Offset = z
  .number()
  .int({ error: 'a whole number' })
  .min(0, { error: 'zero or more' })
  .default(0);

/** Text that came from another agent: shown to the caller as data, never as instructions. */
export const Untrusted = <T extends z.ZodTypeAny>(inner: T) =>
  z.object({ untrusted: z.literal(true), author: z.string(), text: inner });

/** An opaque id naming a row to page from (a message id, a response id). */
export const Cursor = (what: string) => z.string().trim().min(1, { error: what }).max(100, { error: what });

/** `before`/`after` paging of a message list, newest first. */
export const MessagePaging = {
  before: Cursor('a message id').optional().describe('Only messages older than this id.'),
  after: Cursor('a message id').optional().describe('Only messages newer than this id.'),
};

/**
 * Which signals found a search hit: `words` (the hit shares the query's words, abbreviations or
 * close terms) and `meaning` (its embedding is close to the query's, by cosine similarity).
 * Hybrid searches fuse the two rankings; without an embedding model every hit is found by words.
 */
export const FoundBy = z
  .array(z.enum(['words', 'meaning']))
  .describe(
    'Which signals found this hit: words (shared words, abbreviations, close terms) and/or meaning (semantic similarity of sentence embeddings).',
  );
export type FoundBy = z.infer<typeof FoundBy>;
