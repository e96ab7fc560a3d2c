import type { Logger, McpBackend } from '@lore/kit';
import type { Context } from 'hono';
import { callAs, type ToolOutcome } from './call.js';
import type { LiveHints } from './live.js';
import type { ConsoleSession, SessionStore } from './session.js';

/** What every console route needs: the catalog to call, the sessions, and how to reach the owner live. */
export interface ConsoleDeps {
  backend: McpBackend;
  sessions: SessionStore;
  /** Hosts an Origin may name (null: any host that matches the request's own Host). */
  allowedHosts: string[] | undefined;
  verify: (key: string) => Promise<{ id: string; handle: string; node: string } | null>;
  hints: LiveHints;
  log: Logger;
  /** Service health and the catalog, for the network page (the aggregator's own view). */
  catalog?: () => {
    upstreams: Array<{ name: string; state: string; tools: number; lastError: string | null }>;
    tools: Array<{ name: string; service: string | null; title: string | null; description: string | null }>;
  };
}

export type ConsoleEnv = { Variables: { session: ConsoleSession } };

/** A tool call as the signed-in agent of this request. */
export function tool<T = Record<string, unknown>>(
  deps: ConsoleDeps,
  c: Context<ConsoleEnv>,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolOutcome<T>> {
  return callAs<T>(deps.backend, c.get('session').key, name, args, c.req.raw.signal);
}

/** htmx asked for a fragment; a plain form post gets a redirect (the console works without script). */
export const isHtmx = (c: Context) => c.req.header('hx-request') === 'true';

/** Back to a page after a plain form post, with a message shown there. */
export function back(c: Context, path: string, msg: { notice?: string; error?: string }) {
  const q = new URLSearchParams();
  if (msg.notice) q.set('notice', msg.notice);
  if (msg.error) q.set('error', msg.error);
  const qs = q.toString();
  return c.redirect(`${path}${qs ? `?${qs}` : ''}`, 303);
}

export async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}
