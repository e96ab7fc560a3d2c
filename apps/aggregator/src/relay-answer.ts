import type { InterceptAnswer } from '@lore/kit';
import { SERVER_INFO_META_KEY as SERVER_INFO } from '@modelcontextprotocol/server';

/** The response header naming the service a relayed call went to (for operators and tests). */
export const RELAYED_BY = 'x-lore-upstream';

/** What an attempt's answer is: the service's JSON, read whole, or its event stream, read as it comes. */
export type Answer =
  | { kind: 'json'; status: number; body: Buffer; toolError: boolean }
  | { kind: 'stream'; status: number; type: string; body: ReadableStream<Uint8Array> };

/** The service's answer as the client's: JSON with the aggregator named as the server, or the stream as it is. */
export function respond(
  a: Answer,
  id: unknown,
  info: Record<string, unknown>,
  infoBytes: Buffer,
  upstream: string,
  toolError: () => void,
): InterceptAnswer {
  if (a.kind === 'stream')
    return { status: a.status, headers: { 'content-type': a.type, [RELAYED_BY]: upstream }, body: a.body };
  const renamed = renamedAnswerBytes(a.body, id, infoBytes);
  if (renamed !== undefined) {
    if (a.toolError) toolError();
    return {
      status: a.status,
      headers: { 'content-type': 'application/json', [RELAYED_BY]: upstream },
      body: renamed,
    };
  }
  const message = JSON.parse(a.body.toString()) as {
    result?: { isError?: boolean; _meta?: Record<string, unknown> };
  };
  const meta = message.result?._meta;
  if (meta && SERVER_INFO in meta) meta[SERVER_INFO] = info;
  if (message.result?.isError) toolError();
  return {
    status: a.status,
    headers: { 'content-type': 'application/json', [RELAYED_BY]: upstream },
    body: JSON.stringify(message),
  };
}

const SERVER_INFO_KEY = Buffer.from(`${JSON.stringify(SERVER_INFO)}:`);
const META_OPEN = Buffer.from('"_meta":{');

/**
 * A service's answer with the aggregator named as its server, without parsing it, when the answer
 * ends the way the direct exchange writes a successful one: `_meta` the result's last member and
 * the server's identity its only one (`wireToolResult`), then the envelope
 * (`…"_meta":{"io.modelcontextprotocol/serverInfo":{…}}},"jsonrpc":"2.0","id":<id>}`). The text
 * can end so only where the envelope ends (in a string every quote is escaped), the identity must
 * parse as one JSON object on its own, and the result has one `_meta`: what is replaced is the
 * service's name, never what a tool wrote. Any other answer is left to the parser (`undefined`).
 * On the answer's bytes as they came (UTF-8: an ASCII sequence found in it is that text), so the
 * body is neither decoded nor encoded again.
 */
export function renamedAnswerBytes(body: Buffer, id: unknown, info: Buffer): Buffer<ArrayBuffer> | undefined {
  const tail = Buffer.from(`}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);
  const end = body.length - tail.length;
  if (end < 0 || body.compare(tail, 0, tail.length, end) !== 0) return undefined;
  const at = body.lastIndexOf(SERVER_INFO_KEY, end);
  if (at < META_OPEN.length || body.compare(META_OPEN, 0, META_OPEN.length, at - META_OPEN.length, at) !== 0)
    return undefined;
  const start = at + SERVER_INFO_KEY.length;
  try {
    const value: unknown = JSON.parse(body.toString('utf8', start, end));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  } catch {
    return undefined;
  }
  return Buffer.concat([body.subarray(0, start), info, body.subarray(end)]);
}

/** `renamedAnswerBytes` on a text (what the tests read). */
export function renamedAnswer(text: string, id: unknown, infoJson: string): string | undefined {
  return renamedAnswerBytes(Buffer.from(text), id, Buffer.from(infoJson))?.toString();
}
