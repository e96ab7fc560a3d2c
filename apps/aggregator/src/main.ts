#!/usr/bin/env node
import { resolve } from 'node:path';
import { runDocsCli } from '@lore/docs';
import {
  assertPortFree,
  ConfigError,
  createLogger,
  type Logger,
  type LoreConfig,
  loadConfig,
  PortInUseError,
  parsePort,
  serveHttp,
  serveOverStdio,
  startTelemetry,
  UsageError,
} from '@lore/kit';
import { runKnowledgeCli } from '@lore/knowledge';
import { handleRegistered } from '@lore/users';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { Command, CommanderError, Help, InvalidArgumentError } from 'commander';
import { startAllInOne } from './all-in-one.js';
import { AggregatorConfigSchema } from './config.js';
import { startDistributed } from './distributed.js';
import { runNetworkCli } from './network-cli.js';
import { startStandaloneLink } from './network-link.js';
import { clientConfigs, ensureOwner, keepOwnerKey, stdioLauncher } from './owner.js';

const USAGE = `Usage: lore <command> [options]

Commands:
  start                  run every Lore service in this process and serve them at one MCP endpoint
  start --stdio          the same catalog over stdin/stdout (key: LORE_API_KEY, else the owner key)
  start --port N         listen on port N instead of LORE_PORT (default 7400)
  docs ingest <inputs>   ingest files, folders, URLs or sitemaps into the documentation corpus
  articles load <dir>    load a folder of Markdown files into the community articles
  jetstream provision    create or update Lore's event stream and KV buckets (NATS_URL, as the ops user)
  jetstream backup <stream> <file>
                         back up a JetStream stream (events, KV buckets) to a file (NATS_URL)
  jetstream restore <file>
                         restore a stream from such a file onto a NATS without it
  network <command>      the network key and this node's signing key (lore network --help)
  network link           this node's link to a network of several operators, as its own process
                         (LORE_NETWORK_NATS_URL; /healthz and /readyz on LORE_PORT)
  help                   this text

\`lore docs --help\` and \`lore articles --help\` describe their options.
`;

/** The `lore` command: each subcommand with its options, help and errors, through commander. */
function program(): Command {
  const lore = new Command('lore')
    .exitOverride()
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: () => {} })
    .configureHelp({
      // The command list as the README prints it; each subcommand's own help is commander's.
      formatHelp: (cmd, helper) => (cmd.parent ? Help.prototype.formatHelp.call(helper, cmd, helper) : USAGE),
    });
  lore
    .command('start')
    .description('run every Lore service in this process and serve them at one MCP endpoint')
    .option('--stdio', 'serve the catalog over stdin/stdout (key: LORE_API_KEY, else the owner key)')
    .option('--port <n>', 'listen on port N instead of LORE_PORT (default 7400)', portOption)
    .action((opts: { stdio?: boolean; port?: number }) => start(opts));
  const passThrough = (name: string, description: string, run: (args: string[]) => Promise<void>) =>
    lore
      .command(name)
      .description(description)
      .helpOption(false)
      .allowUnknownOption()
      .passThroughOptions()
      .argument('[args...]')
      .action(run);
  passThrough('docs', 'the documentation corpus (lore docs --help)', async (args) => {
    process.exitCode = await docs(args, chdirToCaller(aggregatorConfig()));
  });
  passThrough('articles', 'the community articles (lore articles --help)', async (args) => {
    process.exitCode = await articles(args, chdirToCaller(aggregatorConfig()));
  });
  passThrough('jetstream', "Lore's event stream and KV buckets on NATS_URL", async (args) => {
    chdirToCaller(undefined);
    const { runJetStreamCli } = await import('@lore/kit/nats');
    process.exitCode = await runJetStreamCli(args, {
      natsUrl: process.env.NATS_URL,
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  });
  const network = lore
    .command('network')
    .description("the network key and this node's signing key (lore network --help)")
    .helpOption(false)
    .helpCommand(false)
    .allowUnknownOption()
    .passThroughOptions()
    .argument('[args...]')
    .action((args: string[]) => {
      const config = loadConfig(process.env, AggregatorConfigSchema);
      chdirToCaller(undefined);
      process.exitCode = runNetworkCli(args, config, { stdout: process.stdout });
    });
  network
    .command('link')
    .helpOption('-h, --help', 'display help for command')
    .description("this node's link to a network of several operators, as its own process")
    .option('--port <n>', 'serve /healthz and /readyz on port N instead of LORE_PORT', portOption)
    .action((opts: { port?: number }) => networkLink(opts));
  return lore;
}

function portOption(value: string): number {
  try {
    return parsePort(value, '--port');
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function aggregatorConfig(): LoreConfig {
  const config = loadConfig(process.env, AggregatorConfigSchema);
  config.LORE_DATA_DIR = resolve(config.LORE_DATA_DIR);
  return config;
}

/** `pnpm lore …` runs in the checkout; the paths the user typed are relative to where they typed them. */
function chdirToCaller<T>(value: T): T {
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  return value;
}

/** `lore network link`: the network link alone, beside services that each run in their own process. */
async function networkLink(opts: { port?: number }) {
  const config = loadConfig(process.env, AggregatorConfigSchema);
  const port = opts.port ?? config.LORE_PORT;
  await assertPortFree(config.LORE_HOST, port);
  const log = createLogger({ name: 'lore-network-link', level: config.LORE_LOG_LEVEL });
  const standalone = await startStandaloneLink(config, log);
  let http: Awaited<ReturnType<typeof serveHttp>>;
  try {
    http = await serveHttp(standalone.app, config, port);
  } catch (err) {
    await standalone.close();
    throw err;
  }
  log.info({ url: http.url }, 'network link serving /healthz and /readyz');
  const stop = () => {
    http
      .close()
      .then(() => standalone.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function docs(argv: string[], config: LoreConfig) {
  return runDocsCli(argv, {
    config,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: !!process.stderr.isTTY,
  });
}

function articles(argv: string[], config: LoreConfig) {
  return runKnowledgeCli(argv, {
    config,
    stdout: process.stdout,
    stderr: process.stderr,
    authorExists: (handle) => handleRegistered(config, handle),
  });
}

async function start(values: { stdio?: boolean; port?: number }) {
  const port = values.port;
  const config = loadConfig(process.env, AggregatorConfigSchema);
  const distributed = !!(config.LORE_SERVICES || config.LORE_SERVICES_FILE);
  // A taken port is said before anything starts, not after the services logged that they did.
  if (!values.stdio) await assertPortFree(config.LORE_HOST, port ?? config.LORE_PORT);
  const stopTelemetry = await startTelemetry(config.OTEL_EXPORTER_OTLP_ENDPOINT, 'lore-aggregator');
  const lore = distributed ? await startDistributed(config) : await startAllInOne(config);
  const dataDir = resolve(config.LORE_DATA_DIR);
  const nodeId = 'nodeId' in lore ? (lore.nodeId as string) : undefined;
  // In distributed mode the users service may still be starting: the owner waits for it.
  const owner = distributed
    ? await untilUsersAnswer(lore.log, () => ensureOwner(lore.aggregator, dataDir, 'owner', nodeId))
    : await ensureOwner(lore.aggregator, dataDir, 'owner', nodeId);
  const keyFile = resolve(dataDir, 'owner.key');
  // A rotated owner key is written back to owner.key, so the next start prints the live one.
  const ownerKey = owner ? keepOwnerKey(lore.aggregator, dataDir, owner) : undefined;
  let close: () => Promise<void>;
  if (values.stdio) {
    const key = config.LORE_API_KEY ?? (ownerKey ? () => ownerKey.current() : undefined);
    const handle = serveOverStdio(lore.aggregator, key, (e) => lore.log.warn({ err: e.message }, 'stdio'));
    // The agent the calls act as: LORE_API_KEY's when set (another agent than the owner, or none).
    const agent = config.LORE_API_KEY
      ? 'agentOf' in lore
        ? await lore.agentOf(config.LORE_API_KEY)
        : null
      : (owner?.handle ?? null);
    if (config.LORE_API_KEY && 'agentOf' in lore && agent === null)
      lore.log.warn('LORE_API_KEY is not the key of any agent of this network: every call will answer 401');
    lore.log.info(
      { agent, keyFrom: config.LORE_API_KEY ? 'LORE_API_KEY' : 'owner.key' },
      'serving the Lore catalog over stdio',
    );
    close = async () => {
      await handle.close();
      await lore.close();
    };
  } else {
    let http: Awaited<ReturnType<typeof serveHttp>>;
    try {
      http = await serveHttp(
        lore.app,
        config,
        port ?? config.LORE_PORT,
        'lane' in lore ? lore.lane : undefined,
      );
    } catch (err) {
      await lore.close();
      throw err;
    }
    const endpoint = `${http.url}/mcp`;
    const key = owner?.key ?? '<your API key>';
    const configs = clientConfigs(endpoint, key, {
      keyFile,
      dataDir,
      launcher: stdioLauncher(import.meta.url),
    });
    process.stderr.write(
      [
        '',
        `Lore is running at ${endpoint}  (${'nodeId' in lore ? `node ${lore.nodeId}, all-in-one` : 'distributed'}, ${lore.aggregator.upstreams.length} services, ${lore.aggregator.listTools().length} tools)`,
        '',
        ...(owner
          ? [
              `Owner agent: @${owner.handle}${owner.created ? ' (created now)' : ''}`,
              `API key:     ${owner.key}   (also in ${keyFile})`,
            ]
          : [
              'The owner agent already exists on this network; its key is in the data directory of the node that created it.',
            ]),
        '',
        'MCP client configuration (HTTP):',
        JSON.stringify(configs.http, null, 2),
        '',
        'MCP client configuration (stdio; it reads the owner key from the data directory):',
        JSON.stringify(configs.stdio, null, 2),
        '',
        `Try it: npx @modelcontextprotocol/inspector@0.15.0 --cli ${endpoint} --transport http --method tools/list`,
        '',
      ].join('\n'),
    );
    close = async () => {
      await http.close();
      await lore.close();
    };
  }
  const stop = () => {
    ownerKey?.stop();
    close()
      .then(() => stopTelemetry?.())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A stdio client ends the session by closing our stdin: shut down rather than wait for every
  // timer and worker of the in-process services to let the event loop go.
  if (values.stdio) process.stdin.once('end', stop);
}

const argv = process.argv.slice(2);
// `lore` alone starts Lore.
program()
  .parseAsync(argv.length ? argv : ['start'], { from: 'user' })
  .catch((err) => {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return;
      process.stderr.write(`lore: ${err.message.replace(/^error: /, '')}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof UsageError) {
      process.stderr.write(`lore: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof ConfigError || err instanceof PortInUseError)
      process.stderr.write(`lore: ${err.message}\n`);
    else process.stderr.write(`lore: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });

/** Retries the owner's creation while the users service is not up yet, for two minutes at most. */
async function untilUsersAnswer<T>(log: Logger, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  const policy = retry(
    handleWhen(() => Date.now() < deadline),
    { maxAttempts: 1_000, backoff: new ExponentialBackoff({ initialDelay: 250, maxDelay: 2_000 }) },
  );
  policy.onRetry((r) =>
    log.warn(
      { err: 'error' in r ? (r.error as Error).message : undefined },
      'waiting for the users service to create the owner',
    ),
  );
  return policy.execute(() => fn());
}
