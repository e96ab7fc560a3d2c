import type { ToolError } from '@lore/kit';
import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken } from './paging.js';

describe('page tokens', () => {
  it('round-trips an offset bound to its query and filter', () => {
    const token = encodePageToken(10, 'routing', 'data_source = a');
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, 'routing', 'data_source = a')).toBe(10);
    expect(decodePageToken(undefined, 'x', undefined)).toBe(0);
    expect(decodePageToken('', 'x', undefined)).toBe(0);
    for (const [t, q, f] of [
      [token, 'other query', 'data_source = a'],
      [token, 'routing', undefined],
      ['not-a-token', 'routing', undefined],
      [Buffer.from('{"v":1,"o":-1,"q":"x"}').toString('base64url'), 'routing', undefined],
    ] as const) {
      try {
        decodePageToken(t, q, f);
        throw new Error('accepted');
      } catch (err) {
        expect((err as ToolError).code).toBe(400);
        expect((err as ToolError).data?.field).toBe('pageToken');
      }
    }
  });
});
