import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createNetworkKey,
  endorseNodeKey,
  type LoreConfig,
  loadNodeIdentity,
  nodeIdentityFile,
  rotateNodeIdentity,
  UsageError,
} from '@lore/kit';
import { Command, CommanderError } from 'commander';

export const NETWORK_USAGE = `Usage: lore network <command> [options]

Commands:
  create-key --out <file>           make the network key pair: the private key goes to <file> (mode 600),
                                    the public key (LORE_NETWORK_KEY for every node) is printed
  sign-node --key <file> --node <id> --public-key <file>
                                    endorse a node's signing key with the network key; prints the
                                    endorsement, which that node sets as LORE_NODE_ENDORSEMENT
  node-key                          print this node's id and public signing key (from LORE_DATA_DIR)
  rotate-node-key                   replace this node's signing key; the old key signs the new one,
                                    so other nodes accept it (with a network key, endorse the new key)
  link [--port N]                   run this node's link to a network of several operators as its own
                                    process (LORE_NETWORK_NATS_URL, NATS_USER=link): one per node
  confirm-key --node <id> --public-key <file>
                                    on a network of several operators: accept the new key another
                                    node announces (checked with its operator), in place of the pinned one
`;

/** Where `confirm-key` keeps the keys this node's operator confirmed (read by the network link). */
export const confirmedKeysFile = (dataDir: string) => join(dataDir, 'network-confirmed-keys.json');

/** The keys this node's operator confirmed for other nodes (node id → public PEM). */
export function readConfirmedKeys(dataDir: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(confirmedKeysFile(dataDir), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

interface Io {
  stdout: { write(s: string): unknown };
}

type Flags = { out?: string; key?: string; node?: string; publicKey?: string };

/** `lore network …`: the operator's side of node identity. */
export function runNetworkCli(argv: string[], config: LoreConfig, io: Io): number {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout.write(NETWORK_USAGE);
    return 0;
  }
  try {
    networkCommand(config, io).parse(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode === 0) return 0;
    if (err.code === 'commander.unknownCommand')
      throw new UsageError(`Unknown network command: ${argv[0]}\n${NETWORK_USAGE}`);
    throw new UsageError(`network ${argv[0]}: ${err.message.replace(/^error: /, '')}`);
  }
}

const needs = (command: string, values: Flags, names: Array<keyof Flags>) => {
  const flag = (k: keyof Flags) => (k === 'publicKey' ? 'public-key' : k);
  const missing = names.filter((k) => !values[k]).map(flag);
  if (missing.length) throw new UsageError(`lore network ${command} needs --${missing.join(', --')}`);
};

function networkCommand(config: LoreConfig, io: Io): Command {
  const network = new Command('lore network')
    .exitOverride()
    .helpCommand(false)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: () => {} });
  network
    .command('create-key')
    .description('make the network key pair; prints the public key')
    .option('--out <file>', 'where the private key goes (mode 600)')
    .action((values: Flags) => {
      needs('create-key', values, ['out']);
      const key = createNetworkKey();
      writeFileSync(values.out!, key.privateKey, { mode: 0o600, flag: 'wx' });
      io.stdout.write(key.publicKey);
    });
  network
    .command('sign-node')
    .description("endorse a node's signing key with the network key; prints the endorsement")
    .option('--key <file>', "the network's private key")
    .option('--node <id>', "the node's id")
    .option('--public-key <file>', "the node's public key (lore network node-key)")
    .action((values: Flags) => {
      needs('sign-node', values, ['key', 'node', 'publicKey']);
      const endorsement = endorseNodeKey(
        readFileSync(values.key!, 'utf8'),
        values.node!,
        readFileSync(values.publicKey!, 'utf8'),
      );
      io.stdout.write(`${endorsement}\n`);
    });
  network
    .command('node-key')
    .description("print this node's id and public signing key (from LORE_DATA_DIR)")
    .action(() => {
      const node = loadNodeIdentity(config);
      io.stdout.write(`# node ${node.id}\n${node.publicKey}`);
    });
  network
    .command('rotate-node-key')
    .description("replace this node's signing key; the old key signs the new one")
    .action(() => {
      const next = rotateNodeIdentity(loadNodeIdentity(config));
      writeFileSync(nodeIdentityFile(config), JSON.stringify(next, null, 2), { mode: 0o600 });
      io.stdout.write(`# node ${next.id}: new key, handed over by the old one\n${next.publicKey}`);
    });
  network
    .command('confirm-key')
    .description('accept the new key another node announces, in place of the pinned one')
    .option('--node <id>', "the other node's id")
    .option('--public-key <file>', 'its new public key (PEM)')
    .action((values: Flags) => {
      needs('confirm-key', values, ['node', 'publicKey']);
      const key = readFileSync(values.publicKey!, 'utf8');
      if (!key.includes('BEGIN PUBLIC KEY'))
        throw new UsageError(`--public-key ${values.publicKey}: not a public key (PEM)`);
      const keys = { ...readConfirmedKeys(config.LORE_DATA_DIR), [values.node!]: key };
      writeFileSync(confirmedKeysFile(config.LORE_DATA_DIR), JSON.stringify(keys, null, 2), { mode: 0o600 });
      io.stdout.write(`# node ${values.node}: this key is accepted at its next announcement\n`);
    });
  return network;
}
