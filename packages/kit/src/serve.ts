import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/hono';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Hono } from 'hono';
import type { LoreConfig } from './config.js';
import { createMcpFactory, type McpBackend } from './mcp.js';
import { hostCheck } from './pipeline.js';

/**
 * How long an idle keep-alive connection stays open. Node's default (5 s) is barely above what
 * clients keep one for (undici's 4 s): on a busy machine a client's timer runs late, it sends a
 * request on a socket the server is closing, and gets ECONNRESET. Holding idle connections longer
 * than any client does (65 s, as many servers and load balancers do) leaves closing them to the
 * clients. Headers must be allowed a little longer still, or Node ends such a connection first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A way past the web framework for requests a server can answer from the socket directly:
 * given the request once its Host and Origin have passed the same checks as every request, it
 * returns false to leave the request to the app, or true once it has taken it (then it answers
 * it itself, handing it to `app` when it finds it cannot after all).
 */
export type Lane = (
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  app: (request: Request) => Response | Promise<Response>,
) => boolean;

/**
 * Serves an app on a socket, behind the Host and Origin check of `hostCheck` (pipeline.ts):
 * local names only on loopback, `LORE_ALLOWED_HOSTS` on any other address.
 */
export async function serveHttp(
  app: Hono,
  config: Pick<LoreConfig, 'LORE_HOST' | 'LORE_PORT' | 'LORE_ALLOWED_HOSTS'>,
  port = config.LORE_PORT,
  /** Requests answered before the app, once Host and Origin pass the app's own checks. */
  lane?: Lane,
): Promise<HttpServerHandle> {
  // Step 1 of every call (pipeline.ts): Host and Origin, before any route.
  const check = hostCheck(config);
  const guarded = new Hono();
  if (check.checked) {
    guarded.use('*', hostHeaderValidation(check.hosts));
    guarded.use('/mcp', originValidation(check.hosts));
    // The owner's console (the aggregator's) is held to the same Origin rule as the endpoint.
    guarded.use('/console', originValidation(check.hosts));
    guarded.use('/console/*', originValidation(check.hosts));
  }
  guarded.route('/', app);
  const passes = (req: IncomingMessage) => check.passes(req.headers.host, req.headers.origin);
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
      const http = server as unknown as { keepAliveTimeout: number; headersTimeout: number };
      http.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      http.headersTimeout = HEADERS_TIMEOUT_MS;
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

/**
 * Throws {@link PortInUseError} when something already listens on `host:port`, so that a process
 * can say so before it starts its services (and logs that they started). Port 0 is always free.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, host) : err),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
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
