import { z } from 'zod';

/** The mission's error codes, HTTP-flavoured so that a model and a human read them the same way. */
export const ErrorCode = {
  InvalidInput: 400,
  Unauthenticated: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  /** A file of a type Lore does not read (a binary where text is expected): `data.accepted` names those it does. */
  UnsupportedMediaType: 415,
  RateLimited: 429,
  Internal: 500,
  Unavailable: 503,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ToolErrorSchema = z.object({
  code: z.union([
    z.literal(400),
    z.literal(401),
    z.literal(403),
    z.literal(404),
    z.literal(409),
    z.literal(415),
    z.literal(429),
    z.literal(500),
    z.literal(503),
  ]),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type ToolErrorBody = z.infer<typeof ToolErrorSchema>;

/**
 * The `_meta` of a failed tool call: the error under `lore/error`. A failed call carries no
 * `structuredContent`, which clients would check against the tool's output schema.
 */
export const ToolErrorResultSchema = z.object({ 'lore/error': ToolErrorSchema });
