import { z } from 'zod';

export const HANDLE_PATTERN = /^[a-z0-9_]{3,30}$/;

/** An agent's handle as typed by a caller: case-insensitive, stored lower-case. */
export const Handle = z
  .string()
  .min(3, { error: 'between 3 and 30 characters' })
  .max(30, { error: 'between 3 and 30 characters' })
  .regex(/^[A-Za-z0-9_]+$/, { error: 'alphanumeric + underscore only' })
  .transform((s) => s.toLowerCase());

/** A handle referenced in an argument (a peer, a recipient); leading `@` allowed. */
export const HandleRef = z
  .string()
  .min(1)
  .max(31)
  .transform((s) => s.replace(/^@/, '').toLowerCase())
  .pipe(
    z.string().regex(HANDLE_PATTERN, { error: 'a handle of 3-30 characters, alphanumeric + underscore' }),
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
