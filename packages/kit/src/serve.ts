import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/hono';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Hono } from 'hono';
import { ConfigError, type LoreConfig } from './config.js';
import { createMcpFactory, type McpBackend } from './mcp.js';
import type { Lane } from './relay-lane.js';

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
  /** Requests answered before the app, once Host and Origin pass the app's own checks (see relay-lane.ts). */
  lane?: Lane,
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
    // The owner's console (the aggregator's) is held to the same Origin rule as the endpoint.
    guarded.use('/console', originValidation(hosts));
    guarded.use('/console/*', originValidation(hosts));
  }
  guarded.route('/', app);
  const checked = !hosts.includes('*');
  // The last Host seen to pass: most requests carry the same one, and its check parses a URL.
  let goodHost: string | undefined;
  const passes = (req: IncomingMessage) => {
    if (!checked) return true;
    const host = req.headers.host;
    if (host === undefined || (host !== goodHost && !validateHostHeader(host, hosts).ok)) return false;
    goodHost = host;
    return validateOriginHeader(req.headers.origin, hosts).ok;
  };
  const createLaneServer = lane
    ? (options: object, listener: (incoming: IncomingMessage, outgoing: ServerResponse) => void) =>
        createServer(options, (incoming, outgoing) => {
          const taken =
            passes(incoming) &&
            lane(incoming, outgoing, (request) => guarded.fetch(request, { incoming, outgoing }));
          if (!taken) listener(incoming, outgoing);
        })
    : undefined;
  return new Promise((resolve, reject) => {
    const options = {
      fetch: guarded.fetch,
      hostname: config.LORE_HOST,
      port,
      ...(createLaneServer ? { createServer: createLaneServer as unknown as typeof createServer } : {}),
    };
    const server = serve(options, (info: AddressInfo) => {
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
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, config.LORE_HOST) : err),
    );
  });
}

/** The port is taken: one line that says which and what to do, instead of a stack. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    host: string,
  ) {
    super(
      `Port ${port} on ${host} is already in use: stop what is listening there, or pick a free port with LORE_PORT (e.g. LORE_PORT=${port + 10}).`,
    );
    this.name = 'PortInUseError';
  }
}

/** A port given on the command line or in the environment: a whole number 0-65535, or an error naming it. */
export function parsePort(value: string, name: string): number {
  const port = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${name} must be a port number (0-65535), got '${value}'.`);
  return port;
}

/** A command-line mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Serves the same catalog over stdio, calling as the agent whose key is given: a key, or a
 * function that returns the current one (the owner's key may be rotated while serving).
 */
export function serveOverStdio(
  backend: McpBackend,
  apiKey: string | (() => string | undefined) | undefined,
  onError: (e: Error) => void = () => {},
) {
  // The backend may be a class instance (the aggregator): its methods live on the prototype, which
  // a spread would drop, so the wrapper inherits from it instead and replaces callTool only.
  const withKey: McpBackend = Object.create(backend);
  withKey.callTool = (name, args, call) =>
    backend.callTool(name, args, {
      ...call,
      token: call.token ?? (typeof apiKey === 'function' ? apiKey() : apiKey) ?? null,
    });
  return serveStdio(createMcpFactory(withKey), { onerror: onError });
}
