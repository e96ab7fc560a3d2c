import type { ToolErrorBody } from '@lore/schema/errors';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';

type Code = ToolErrorBody['code'];

/** A failure a caller can act on. Thrown anywhere in a tool; becomes an `isError` result. */
export class ToolError extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  toBody(): ToolErrorBody {
    return this.data
      ? { code: this.code, message: this.message, data: this.data }
      : { code: this.code, message: this.message };
  }
}

export const invalid = (field: string, constraint: string, message = `Invalid ${field}: ${constraint}`) =>
  new ToolError(400, message, { field, constraint });
/** A file Lore does not read as text (415), naming the field and the types it does read. */
export const unsupportedMedia = (field: string, message: string, accepted: readonly string[]) =>
  new ToolError(415, message, { field, accepted: [...accepted] });
export const unauthenticated = (
  message = 'Authentication required: send `Authorization: Bearer <API key>` (get a key with agent_register).',
) => new ToolError(401, message);
export const forbidden = (message: string, data?: Record<string, unknown>) =>
  new ToolError(403, message, data);
export const notFound = (message: string, data?: Record<string, unknown>) =>
  new ToolError(404, message, data);
export const conflict = (message: string, data?: Record<string, unknown>) =>
  new ToolError(409, message, data);
export const rateLimited = (retryAfterSeconds: number, message?: string) =>
  new ToolError(429, message ?? `Rate limit reached; retry in ${retryAfterSeconds} s.`, {
    retryAfterSeconds,
  });
export const unavailable = (message: string, retryAfterSeconds = 5) =>
  new ToolError(503, message, { retryAfterSeconds });

/** The first zod issue, as a 400 that names the field and the rule it broke. */
export function fromZodError(error: z.ZodError, input?: unknown): ToolError {
  const issue = error.issues[0];
  if (!issue) return invalid('input', 'invalid');
  const field = issue.path.length ? issue.path.map(String).join('.') : 'input';
  const top = issue.path.length ? String(issue.path[0]) : 'input';
  let constraint = issue.message;
  if (issue.code === 'invalid_type') {
    const missing = valueAt(input, issue.path) === undefined || /received undefined/.test(issue.message);
    constraint = missing ? 'required' : `expected ${issue.expected}`;
  } else if (issue.code === 'unrecognized_keys') {
    return invalid(issue.keys[0] ?? field, 'unknown field', `Unknown field: ${issue.keys.join(', ')}`);
  }
  const message =
    constraint === 'required'
      ? `Missing required field: ${field}`
      : issue.code === 'invalid_format' || issue.code === 'custom'
        ? `Invalid ${top} format`
        : `Invalid ${field}: ${constraint}`;
  return invalid(field, constraint, message);
}

export function toToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  const e = err as { name?: string; code?: unknown; message?: string; data?: Record<string, unknown> };
  if (e?.name === 'BusRemoteError' && typeof e.code === 'number' && e.code !== 500)
    return new ToolError(e.code as Code, e.message ?? 'error', e.data);
  if (e?.name === 'BusTimeoutError' || e?.name === 'BusNoResponderError')
    return unavailable('A Lore service this tool depends on is not answering; try again shortly.');
  return new ToolError(500, 'Internal error. The failure was logged; try again or report it.');
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** Where a failed call's machine-readable error travels: the result's `_meta`. */
export const ERROR_META_KEY = 'lore/error';

/**
 * A failed call: the text a model reads, and `{code, message, data}` in `_meta`. Never
 * `structuredContent`: stock clients (SDK v1, the Inspector) check it against the tool's
 * output schema even when `isError` is set, and throw instead of showing the message.
 */
export function errorResult(err: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: `Error ${err.code}: ${err.message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: err.toBody() },
  };
}

/** The `{code, message, data}` of a failed call's result, from `_meta` (undefined when it succeeded). */
export function toolErrorOf(result: {
  isError?: boolean;
  _meta?: Record<string, unknown>;
}): ToolErrorBody | undefined {
  if (!result.isError) return undefined;
  return result._meta?.[ERROR_META_KEY] as ToolErrorBody | undefined;
}
