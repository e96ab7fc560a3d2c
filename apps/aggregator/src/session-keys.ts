import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { forwardContext } from './context.js';
import type { Upstream } from './upstream.js';

/**
 * How the aggregator in distributed mode checks a key before opening a 2025-11-25 session: it
 * asks Lore's users service, through one read-only call made with that key (it counts as one of
 * the agent's reads). Only a 401 means the key is bad; any other answer means it authenticated.
 * When the users service cannot be asked, no session is opened (the client may retry). Without a
 * users service among the upstreams there is nothing to check keys against.
 */
export function sessionKeyCheck(upstreams: Upstream[]): ((key: string) => Promise<boolean>) | undefined {
  const users = upstreams.find((u) => u.opts.lore && u.name === 'users');
  if (!users) return undefined;
  return async (key) => {
    try {
      const result = (await forwardContext.run({ token: key, requestId: randomUUID() }, () =>
        users.call('cqGetActiveUsers', {}, { timeoutMs: 5_000 }),
      )) as CallToolResult;
      const code = (result._meta?.['lore/error'] as { code?: number } | undefined)?.code;
      return !(result.isError && code === 401);
    } catch {
      return false;
    }
  };
}
