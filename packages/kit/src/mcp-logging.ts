import type { LoggingLevel, Server, ServerContext } from '@modelcontextprotocol/server';

const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** How a log message about a call is sent: `ifAsked` messages go only to clients that set a level. */
export interface NotifyOptions {
  /** Lore's own warnings about a call (its error, for one): only for a client that chose a level. */
  ifAsked?: boolean;
}

export type Notify = (level: LoggingLevel, data: unknown, opts?: NotifyOptions) => Promise<void>;

/**
 * `logging/setLevel` for 2025-11-25 clients, remembered per session (the server lives as long as
 * its session), and the `notifications/message` sender that honours it. The SDK's own handler
 * cannot tell "no level chosen" from "every level", and a client that never asked must not hear
 * Lore's warnings. 2026-07-28 clients name their level on each request; the SDK filters those.
 */
export function clientLogging(server: Server, era: 'legacy' | 'modern', logger: string) {
  const levels = new Map<string | undefined, LoggingLevel>();
  const sessionOf = (ctx: ServerContext) =>
    ctx.sessionId || ctx.http?.req?.headers.get('mcp-session-id') || undefined;
  server.setRequestHandler('logging/setLevel', async (req, ctx) => {
    levels.set(sessionOf(ctx), req.params.level);
    return {};
  });
  return (ctx: ServerContext): Notify =>
    async (level, data, opts) => {
      if (era === 'legacy') {
        const chosen = levels.get(sessionOf(ctx));
        if (chosen === undefined ? opts?.ifAsked : SEVERITY.indexOf(level) < SEVERITY.indexOf(chosen)) return;
      }
      await ctx.mcpReq.log(level, data, logger).catch(() => {});
    };
}
