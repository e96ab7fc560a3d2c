import { connect } from '@nats-io/transport-node';
import { parseCommandLine } from '../cli-args.js';
import { plural } from '../format.js';
import { backupStream, restoreStream } from './backup.js';
import { type NatsAuthEnv, natsCredentialsFrom, natsInboxPrefix } from './nats-auth.js';
import { natsConnectAuth } from './nats-authenticator.js';
import { natsServers } from './nats-setup.js';
import { provisionJetStream } from './provision.js';

export const JETSTREAM_USAGE = `Usage: lore jetstream <command>

Commands (NATS at NATS_URL; servers separated by commas; credentials from NATS_USER and
NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED or NATS_CREDS, as the ops user on a secured NATS):
  provision [--replicas N] create Lore's event stream and KV buckets, or bring existing ones to
                           Lore's settings (N copies of each, default LORE_NATS_REPLICAS or 1);
                           run before the services start, and again after changing replicas
  backup <stream> <file>   write every message of a stream (LORE_EVENTS, KV_lore_handles, …) to a file
  restore <file>           create the stream of a backup and publish its messages again (the stream must not exist)
`;

/** What `argv` asks for, or the usage error to print (parsed by commander, `parseCommandLine`). */
function parseJetStreamArgs(
  argv: string[],
):
  | { help: true }
  | { error: string }
  | { command: 'backup' | 'restore' | 'provision'; args: string[]; replicas?: string | undefined } {
  let values: { help?: boolean | undefined; replicas?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseCommandLine(argv, {
      help: { type: 'boolean', short: 'h' },
      replicas: { type: 'string' },
    }));
  } catch (err) {
    // An unknown option: the message names it.
    return { error: (err as Error).message };
  }
  const [command, ...args] = positionals;
  if (values.help || command === 'help') return { help: true };
  if (!command) return { error: 'jetstream needs a command: provision, backup or restore' };
  if (command !== 'backup' && command !== 'restore' && command !== 'provision')
    return { error: `Unknown command: jetstream ${command}` };
  if (command === 'provision') {
    if (args.length) return { error: 'jetstream provision takes no arguments (only --replicas N)' };
    return { command, args, replicas: values.replicas };
  }
  if (values.replicas !== undefined) return { error: '--replicas belongs to jetstream provision' };
  if (command === 'backup' && args.length !== 2)
    return { error: 'jetstream backup needs <stream> and <file>' };
  if (command === 'restore' && args.length !== 1) return { error: 'jetstream restore needs <file>' };
  return { command, args };
}

/** \`lore jetstream provision|backup|restore\`: returns the exit code. */
export async function runJetStreamCli(
  argv: string[],
  io: {
    natsUrl: string | undefined;
    /** Where the NATS credentials and LORE_NATS_REPLICAS are read from. Default: none. */
    env?: NatsAuthEnv & { LORE_NATS_REPLICAS?: string | undefined };
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
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
  if (!io.natsUrl)
    return usage(
      `NATS_URL is not set: name the NATS servers to ${command === 'provision' ? 'provision' : 'back up from or restore to'}`,
    );
  const env = io.env ?? {};
  let replicas = 1;
  if (command === 'provision') {
    const given = parsed.replicas ?? env.LORE_NATS_REPLICAS ?? '1';
    replicas = Number(given);
    if (!/^[1-5]$/.test(given)) return usage(`--replicas must be 1 to 5, not ${given}`);
  }
  let credentials: ReturnType<typeof natsCredentialsFrom>;
  try {
    credentials = natsCredentialsFrom(env);
  } catch (err) {
    return usage((err as Error).message);
  }
  const inboxPrefix = natsInboxPrefix(env);
  const nc = await connect({
    servers: natsServers(io.natsUrl),
    name: `lore-jetstream-${command}`,
    ...natsConnectAuth({ ...(credentials ? { credentials } : {}), ...(inboxPrefix ? { inboxPrefix } : {}) }),
  });
  try {
    if (command === 'provision') {
      for (const line of await provisionJetStream(nc, { replicas })) io.stdout.write(`${line}\n`);
    } else if (command === 'backup') {
      const n = await backupStream(nc, args[0]!, args[1]!);
      io.stdout.write(`backed up ${plural(n, 'message')} of ${args[0]} to ${args[1]}\n`);
    } else {
      const n = await restoreStream(nc, args[0]!);
      io.stdout.write(`restored ${plural(n, 'message')} from ${args[0]}\n`);
    }
    return 0;
  } catch (err) {
    io.stderr.write(`jetstream ${command}: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await nc.close();
  }
}
