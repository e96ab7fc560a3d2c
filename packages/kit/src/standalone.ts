import type { z } from 'zod';
import { createBus, natsAccess } from './bus/index.js';
import { parseCommandLine } from './cli-args.js';
import { type BaseConfig, BaseConfigSchema, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createDirectory, directoryTrust, registerNodeKey } from './network/index.js';
import { loadNodeIdentity } from './node.js';
import { assertPortFree, PortInUseError, parsePort, serveHttp, serveOverStdio, UsageError } from './serve.js';
import type { LoreService, ServiceDeps } from './service.js';
import { startTelemetry } from './telemetry.js';

export interface StandaloneOptions {
  env: Record<string, string | undefined>;
  /** The service's configuration schema (the kit's base extended with its own settings). */
  schema?: z.ZodType<BaseConfig>;
  argv: string[];
  defaultPort?: number;
  /**
   * This process publishes the node's key in the network directory. On a NATS with the shipped
   * permissions only the users service may write the directory (every process of the node shares
   * the key), so it is the one that passes `true`; with the in-process bus every service does.
   */
  publishesNodeKey?: boolean;
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
  const config = loadConfig(opts.env, opts.schema ?? BaseConfigSchema);
  const log = createLogger({ name: `lore-${name}`, level: config.LORE_LOG_LEVEL });
  const stdio = !!args.stdio;
  const port =
    explicitPort !== undefined
      ? explicitPort
      : opts.env.LORE_PORT
        ? config.LORE_PORT
        : (opts.defaultPort ?? config.LORE_PORT);
  // A taken port is said before anything starts, not after the service logged that it did.
  if (!stdio) await assertPortFree(config.LORE_HOST, port);
  const node = loadNodeIdentity(config);
  const stopTelemetry = await startTelemetry(config.OTEL_EXPORTER_OTLP_ENDPOINT, `lore-${name}`);
  const bus = await createBus({
    natsUrl: config.NATS_URL,
    ...natsAccess(config, (m) => log.warn(m)),
    name: `lore-${name}`,
    replicas: config.LORE_NATS_REPLICAS,
    timeoutScale: config.LORE_BUS_TIMEOUT_SCALE,
    onError: (err, event, consumer) =>
      log.warn({ err: (err as Error).message, subject: event?.subject, consumer }, 'event handler failed'),
  });
  const directory = await createDirectory(bus, directoryTrust(config, log, node));
  if (opts.publishesNodeKey || bus.kind === 'memory') await registerNodeKey(directory, node, log);
  const service = await create({ config, bus, nodeId: node.id, node, directory, log });
  await service.start();
  if (stdio) {
    const handle = serveOverStdio(service.backend, config.LORE_API_KEY, (e) =>
      log.warn({ err: e.message }, 'stdio'),
    );
    log.info({ node: node.id, bus: bus.kind }, `lore-${name} serving over stdio`);
    return {
      async close() {
        await handle.close();
        await stopWithin(() => service.stop(), log);
        await bus.close();
        await stopTelemetry?.();
      },
    };
  }
  const http = await serveHttp(service.app, config, port);
  log.info({ node: node.id, bus: bus.kind, url: `${http.url}/mcp` }, `lore-${name} listening`);
  return {
    url: http.url,
    async close() {
      await http.close();
      await stopWithin(() => service.stop(), log);
      await bus.close();
      await stopTelemetry?.();
    },
  };
}

/**
 * Runs a service's (or services') own shutdown, within a bound. How long it may take (its outbox's last publish, its subscriptions'
 * drain) before the bus is closed under it: with the NATS server gone those wait for a
 * reconnect that may never come, and a stop that never ends is worse than one that drops
 * what was in flight (JetStream redelivers what was not acknowledged).
 */
const STOP_BOUND_MS = 4000;

export async function stopWithin(stop: () => Promise<void>, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), STOP_BOUND_MS);
  });
  const outcome = await Promise.race([
    stop().then(
      () => 'stopped' as const,
      (err: unknown) => {
        log.warn({ err: (err as Error).message }, 'stopping the service failed');
        return 'failed' as const;
      },
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late')
    log.warn({ boundMs: STOP_BOUND_MS }, 'the service did not stop in time; closing the bus under it');
}

/** How a service is started from the command line. */
export const STANDALONE_USAGE = '[--stdio] [--port N]';

function standaloneArgs(argv: string[]): { stdio?: boolean; port?: string } {
  // `pnpm start -- --stdio` (as the READMEs print it) hands the script the `--` itself, which
  // would end the options and make `--stdio` a stray argument.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  // `--port` with no value, an unknown flag: the UsageError names it; the user gets it as one line.
  const { values, positionals } = parseCommandLine(args, {
    stdio: { type: 'boolean' },
    port: { type: 'string' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'.`);
  return values;
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

/**
 * A service's process entry (`src/main.ts`), the same for every service: runs it standalone
 * with this process's environment and arguments, prints a startup failure as one line and exits
 * with its code, and closes the service on SIGINT or SIGTERM.
 */
export async function serviceMain(
  name: string,
  create: (deps: ServiceDeps) => Promise<LoreService>,
  opts: Omit<StandaloneOptions, 'env' | 'argv'>,
): Promise<void> {
  const running = await runStandalone(name, create, {
    ...opts,
    env: process.env,
    argv: process.argv.slice(2),
  }).catch((err: unknown) => {
    // A port in use or a bad flag is one line the user can act on, not a stack.
    const failure = startupFailure(name, err);
    process.stderr.write(`${failure.message}\n`);
    process.exit(failure.exitCode);
  });
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
