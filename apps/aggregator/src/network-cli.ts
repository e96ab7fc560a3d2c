import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createNetworkKey,
  endorseNodeKey,
  type LoreConfig,
  loadNodeIdentity,
  nodeIdentityFile,
  rotateNodeIdentity,
  UsageError,
} from '@lore/kit';

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

/** `lore network …`: the operator's side of node identity. */
export function runNetworkCli(argv: string[], config: LoreConfig, io: Io): number {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      out: { type: 'string' },
      key: { type: 'string' },
      node: { type: 'string' },
      'public-key': { type: 'string' },
    },
  });
  switch (command) {
    case 'create-key': {
      if (!values.out) throw new UsageError('lore network create-key needs --out <file> for the private key');
      const key = createNetworkKey();
      writeFileSync(values.out, key.privateKey, { mode: 0o600, flag: 'wx' });
      io.stdout.write(key.publicKey);
      return 0;
    }
    case 'sign-node': {
      const missing = (['key', 'node', 'public-key'] as const).filter((k) => !values[k]);
      if (missing.length) throw new UsageError(`lore network sign-node needs --${missing.join(', --')}`);
      const endorsement = endorseNodeKey(
        readFileSync(values.key!, 'utf8'),
        values.node!,
        readFileSync(values['public-key']!, 'utf8'),
      );
      io.stdout.write(`${endorsement}\n`);
      return 0;
    }
    case 'node-key': {
      const node = loadNodeIdentity(config);
      io.stdout.write(`# node ${node.id}\n${node.publicKey}`);
      return 0;
    }
    case 'rotate-node-key': {
      const node = loadNodeIdentity(config);
      const next = rotateNodeIdentity(node);
      writeFileSync(nodeIdentityFile(config), JSON.stringify(next, null, 2), {
        mode: 0o600,
      });
      io.stdout.write(`# node ${next.id}: new key, handed over by the old one\n${next.publicKey}`);
      return 0;
    }
    case 'confirm-key': {
      const missing = (['node', 'public-key'] as const).filter((k) => !values[k]);
      if (missing.length) throw new UsageError(`lore network confirm-key needs --${missing.join(', --')}`);
      const key = readFileSync(values['public-key']!, 'utf8');
      if (!key.includes('BEGIN PUBLIC KEY'))
        throw new UsageError(`--public-key ${values['public-key']}: not a public key (PEM)`);
      const keys = { ...readConfirmedKeys(config.LORE_DATA_DIR), [values.node!]: key };
      writeFileSync(confirmedKeysFile(config.LORE_DATA_DIR), JSON.stringify(keys, null, 2), { mode: 0o600 });
      io.stdout.write(`# node ${values.node}: this key is accepted at its next announcement\n`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      io.stdout.write(NETWORK_USAGE);
      return 0;
    default:
      throw new UsageError(`Unknown network command: ${command}\n${NETWORK_USAGE}`);
  }
}
