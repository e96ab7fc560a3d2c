import { createHash } from 'node:crypto';
import { invalid } from '@lore/kit';

/** What a page token is bound to: the query and the filter (not the page size). */
function fingerprint(query: string, filter: string | undefined): string {
  return createHash('sha256')
    .update(`${query.trim()}\u0000${(filter ?? '').trim()}`)
    .digest('base64url')
    .slice(0, 16);
}

/** An opaque token for the page starting at `offset` of this query's results. */
export function encodePageToken(offset: number, query: string, filter: string | undefined): string {
  return Buffer.from(JSON.stringify({ v: 1, o: offset, q: fingerprint(query, filter) })).toString(
    'base64url',
  );
}

/** The offset a token stands for; 0 without one. A malformed token, or one from another query, is a 400 naming pageToken. */
export function decodePageToken(
  token: string | undefined,
  query: string,
  filter: string | undefined,
): number {
  if (token === undefined || token === '') return 0;
  let parsed: { v?: unknown; o?: unknown; q?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw invalid('pageToken', 'malformed', 'Invalid pageToken: not a token returned by search_documents.');
  }
  if (
    parsed?.v !== 1 ||
    typeof parsed.o !== 'number' ||
    !Number.isInteger(parsed.o) ||
    parsed.o < 0 ||
    typeof parsed.q !== 'string'
  ) {
    throw invalid('pageToken', 'malformed', 'Invalid pageToken: not a token returned by search_documents.');
  }
  if (parsed.q !== fingerprint(query, filter)) {
    throw invalid(
      'pageToken',
      'different query',
      'Invalid pageToken: it belongs to another query or filter; send the same query and filter as the call that returned it, or omit pageToken to start over.',
    );
  }
  return parsed.o;
}
