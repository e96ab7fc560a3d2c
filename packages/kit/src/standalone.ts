import { parseArgs } from 'node:util';
import { createBus } from './bus/index.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createDirectory } from './network/index.js';
import { loadNodeIdentity } from './node.js';
import { PortInUseError, parsePort, serveHttp, serveOverStdio, UsageError } from './serve.js';
import type { LoreService, ServiceDeps } from './service.js';
import { startTelemetry } from './telemetry.js';

export interface StandaloneOptions {
  env: Record<string, string | undefined>;
  argv: string[];
  defaultPort?: number;
}

/**
 * Runs one service as its own process: its database, the bus (NATS when `NATS_URL` is set,
 * otherwise in-process), served over HTTP or, with `--stdio`, over stdin/stdout.
 */
export async function runStandalone(
  name: string,
  create: (deps: ServiceDeps) => Promise<LoreService>,
  opts: StandaloneOptions,
): Promise<{ close(): Promise<void>; url?: string }> {
  const args = standaloneArgs(opts.argv);
  // Checked before anything starts: a bad flag costs nothing to report.
  const explicitPort = args.port !== undefined ? parsePort(args.port, '--port') : undefined;
  const config = loadConfig(opts.env);
  const log = createLogger({ name: `lore-${name}`, level: config.LORE_LOG_LEVEL });
  const node = loadNodeIdentity(config);
  const stopTelemetry = await startTelemetry(config.OTEL_EXPORTER_OTLP_ENDPOINT, `lore-${name}`);
  const bus = await createBus({
    natsUrl: config.NATS_URL,
    name: `lore-${name}`,
    replicas: config.LORE_NATS_REPLICAS,
    onError: (err, event, consumer) =>
      log.warn({ err: (err as Error).message, subject: event?.subject, consumer }, 'event handler failed'),
  });
  const directory = await createDirectory(bus);
  await directory.registerNode(node.id, node.publicKey);
  const service = await create({ config, bus, nodeId: node.id, node, directory, log });
  await service.start();
  const stdio = !!args.stdio;
  if (stdio) {
    const handle = serveOverStdio(service.backend, config.LORE_API_KEY, (e) =>
      log.warn({ err: e.message }, 'stdio'),
    );
    log.info({ node: node.id, bus: bus.kind }, `lore-${name} serving over stdio`);
    return {
      async close() {
        await handle.close();
        await service.stop();
        await bus.close();
        await stopTelemetry?.();
      },
    };
  }
  const port =
    explicitPort !== undefined
      ? explicitPort
      : opts.env.LORE_PORT
        ? config.LORE_PORT
        : (opts.defaultPort ?? config.LORE_PORT);
  const http = await serveHttp(service.app, config, port);
  log.info({ node: node.id, bus: bus.kind, url: `${http.url}/mcp` }, `lore-${name} listening`);
  return {
    url: http.url,
    async close() {
      await http.close();
      await service.stop();
      await bus.close();
      await stopTelemetry?.();
    },
  };
}

/** How a service is started from the command line. */
export const STANDALONE_USAGE = '[--stdio] [--port N]';

function standaloneArgs(argv: string[]): { stdio?: boolean; port?: string } {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      options: { stdio: { type: 'boolean' }, port: { type: 'string' } },
    }).values;
  } catch (err) {
    // `--port` with no value, an unknown flag: parseArgs says which; the user gets it as one line.
    throw new UsageError((err as Error).message);
  }
}

/**
 * What a service's entry prints when it cannot start, and its exit code: one line for what the
 * user can fix (a usage mistake exits 2; a port in use or bad configuration exits 1), the stack
 * only for what they cannot.
 */
export function startupFailure(name: string, err: unknown): { message: string; exitCode: number } {
  const prefix = `lore-${name}:`;
  if (err instanceof UsageError)
    return { message: `${prefix} ${err.message} Usage: lore-${name} ${STANDALONE_USAGE}`, exitCode: 2 };
  if (err instanceof PortInUseError || err instanceof ConfigError)
    return { message: `${prefix} ${err.message}`, exitCode: 1 };
  return { message: `${prefix} ${(err as Error)?.stack ?? String(err)}`, exitCode: 1 };
}
