import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { backupStream, restoreStream } from './backup.js';
import { natsServers } from './nats.js';

export const JETSTREAM_USAGE = `Usage: lore jetstream <command>

Commands (NATS at NATS_URL; servers separated by commas):
  backup <stream> <file>   write every message of a stream (LORE_EVENTS, KV_lore_handles, …) to a file
  restore <file>           create the stream of a backup and publish its messages again (the stream must not exist)
`;

/** What `argv` asks for, or the usage error to print (parsed by `node:util` parseArgs). */
function parseJetStreamArgs(
  argv: string[],
): { help: true } | { error: string } | { command: 'backup' | 'restore'; args: string[] } {
  let values: { help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    }));
  } catch (err) {
    // An unknown option: parseArgs names it in its message.
    return { error: (err as Error).message };
  }
  const [command, ...args] = positionals;
  if (values.help || command === 'help') return { help: true };
  if (!command) return { error: 'jetstream needs a command: backup or restore' };
  if (command !== 'backup' && command !== 'restore')
    return { error: `Unknown command: jetstream ${command}` };
  if (command === 'backup' && args.length !== 2)
    return { error: 'jetstream backup needs <stream> and <file>' };
  if (command === 'restore' && args.length !== 1) return { error: 'jetstream restore needs <file>' };
  return { command, args };
}

/** \`lore jetstream backup|restore\`: returns the exit code. */
export async function runJetStreamCli(
  argv: string[],
  io: { natsUrl: string | undefined; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const usage = (why: string) => {
    io.stderr.write(`${why}\n\n${JETSTREAM_USAGE}`);
    return 2;
  };
  const parsed = parseJetStreamArgs(argv);
  if ('help' in parsed) {
    io.stdout.write(JETSTREAM_USAGE);
    return 0;
  }
  if ('error' in parsed) return usage(parsed.error);
  const { command, args } = parsed;
  if (!io.natsUrl) return usage('NATS_URL is not set: name the NATS servers to back up from or restore to');
  const nc = await connect({ servers: natsServers(io.natsUrl) });
  try {
    if (command === 'backup') {
      const n = await backupStream(nc, args[0]!, args[1]!);
      io.stdout.write(`backed up ${n} messages of ${args[0]} to ${args[1]}\n`);
    } else {
      const n = await restoreStream(nc, args[0]!);
      io.stdout.write(`restored ${n} messages from ${args[0]}\n`);
    }
    return 0;
  } catch (err) {
    io.stderr.write(`jetstream ${command}: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await nc.close();
  }
}
