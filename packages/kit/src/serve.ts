import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/hono';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Hono } from 'hono';
import { ConfigError, type LoreConfig } from './config.js';
import { createMcpFactory, type McpBackend } from './mcp.js';

const LOCAL = ['localhost', '127.0.0.1', '[::1]'];

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves an app on a socket. On loopback (the default) it accepts only local Host and
 * Origin headers, which is what stops DNS-rebinding attacks from a browser. On any other
 * address the operator must say which Host names to accept (`LORE_ALLOWED_HOSTS`, or `*`
 * when a proxy in front checks them): binding wide open without a word stops the process.
 */
export async function serveHttp(
  app: Hono,
  config: Pick<LoreConfig, 'LORE_HOST' | 'LORE_PORT' | 'LORE_ALLOWED_HOSTS'>,
  port = config.LORE_PORT,
): Promise<HttpServerHandle> {
  const allowed = config.LORE_ALLOWED_HOSTS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const guarded = new Hono();
  if (!allowed?.length && !LOCAL.includes(config.LORE_HOST) && config.LORE_HOST !== '::1')
    throw new ConfigError([
      `LORE_ALLOWED_HOSTS: required when LORE_HOST (${config.LORE_HOST}) is not a loopback address — ` +
        'list the Host names clients use (e.g. lore.example.com), or * when a proxy in front checks them',
    ]);
  const hosts = allowed?.length ? allowed : LOCAL;
  if (!hosts.includes('*')) {
    guarded.use('*', hostHeaderValidation(hosts));
    guarded.use('/mcp', originValidation(hosts));
  }
  guarded.route('/', app);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: guarded.fetch, hostname: config.LORE_HOST, port }, (info: AddressInfo) => {
      const host = config.LORE_HOST.includes(':') ? `[${config.LORE_HOST}]` : config.LORE_HOST;
      resolve({
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** Serves the same catalog over stdio; the key comes from the environment (`LORE_API_KEY`). */
export function serveOverStdio(
  backend: McpBackend,
  apiKey: string | undefined,
  onError: (e: Error) => void = () => {},
) {
  const withKey: McpBackend = {
    ...backend,
    callTool: (name, args, call) =>
      backend.callTool(name, args, { ...call, token: call.token ?? apiKey ?? null }),
  };
  return serveStdio(createMcpFactory(withKey), { onerror: onError });
}
