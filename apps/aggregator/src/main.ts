#!/usr/bin/env node
import { join } from 'node:path';
import { runDocsCli } from '@lore/docs';
import { ConfigError, loadConfig, serveHttp, serveOverStdio, startTelemetry } from '@lore/kit';
import { runKnowledgeCli } from '@lore/knowledge';
import { startAllInOne } from './all-in-one.js';
import { startDistributed } from './distributed.js';
import { clientConfigs, ensureOwner } from './owner.js';

const USAGE = `Usage: lore <command>

Commands:
  start            run every Lore service in this process and serve them at one MCP endpoint
  start --stdio    the same catalog over stdin/stdout (the key comes from LORE_API_KEY or the owner key)
  help             this text
`;

async function main(argv: string[]) {
  const [command = 'start', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === 'docs') {
    process.exitCode = await runDocsCli(rest, {
      config: loadConfig(process.env),
      stdout: process.stdout,
      stderr: process.stderr,
      isTTY: !!process.stderr.isTTY,
    });
    return;
  }
  if (command === 'articles') {
    process.exitCode = await runKnowledgeCli(rest, {
      config: loadConfig(process.env),
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return;
  }
  if (command !== 'start') {
    process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig(process.env);
  const distributed = !!(config.LORE_SERVICES || config.LORE_SERVICES_FILE);
  const stopTelemetry = await startTelemetry(config.OTEL_EXPORTER_OTLP_ENDPOINT, 'lore-aggregator');
  const lore = distributed ? await startDistributed(config) : await startAllInOne(config);
  const owner = await ensureOwner(
    lore.aggregator,
    config.LORE_DATA_DIR,
    'owner',
    'nodeId' in lore ? (lore.nodeId as string) : undefined,
  );
  const keyFile = join(config.LORE_DATA_DIR, 'owner.key');
  let close: () => Promise<void>;
  if (rest.includes('--stdio')) {
    const handle = serveOverStdio(lore.aggregator, config.LORE_API_KEY ?? owner?.key, (e) =>
      lore.log.warn({ err: e.message }, 'stdio'),
    );
    lore.log.info({ agent: owner?.handle ?? null }, 'serving the Lore catalog over stdio');
    close = async () => {
      await handle.close();
      await lore.close();
    };
  } else {
    const http = await serveHttp(lore.app, config);
    const endpoint = `${http.url}/mcp`;
    const key = owner?.key ?? '<your API key>';
    const configs = clientConfigs(endpoint, key, keyFile);
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
        'MCP client configuration (stdio):',
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
    close()
      .then(() => stopTelemetry?.())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`lore: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
