/**
 * Many operators, one Lore network: each operator runs its own NATS (with its own users,
 * JetStream and databases) and joins a hub with a leaf node connection. Rendered from
 * permissions.ts and the network's subjects (packages/kit/src/network/federation-subjects.ts):
 *
 * - `pnpm nats:hub --member <account>=<node,node…> …` prints the hub's configuration: one
 *   account per operator, bound to its leaf login, exporting and importing exactly the network's
 *   subjects, scoped by node id, with per-account limits;
 * - `pnpm nats:leaf --hub nats-leaf://<host>:7422 --account <account> --nodes <node,…>` prints an
 *   operator's server configuration: Lore's users in the account `LORE` (with JetStream), the
 *   network link's user in the account `NETWORK`, and the leaf connection bound to `NETWORK`
 *   alone. The two accounts share nothing: no internal subject can cross the leaf connection.
 *
 * The hub's passwords are read by nats-server from `LORE_HUB_PASSWORD_<ACCOUNT>`; the leaf's
 * hub password (`LORE_HUB_PASSWORD`) goes into the leaf connection's URL, the one place
 * nats-server 2.9 takes it from: the rendered leaf file is a secret (written mode 0600).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { netSubjects, networkUserPermissions } from '../../packages/kit/src/network/federation-subjects.js';
import { header, NODE_ID, userBlock } from './generate.js';
import { NATS_USERS, permissionsFor } from './permissions.js';

/** One operator of the network: its account on the hub and the ids of its Lore nodes. */
export interface NetworkMember {
  account: string;
  nodes: string[];
}

/**
 * What the hub holds each account to. nats-server 2.9 limits per account the leaf connections
 * (checked when one connects) and its clients' connections, subscriptions and payload size (a
 * message that comes over a leaf connection is not checked against max_payload in 2.9). It has
 * no message-rate limit: each node limits the rate and size of what it accepts from every other
 * node (the network link: `LORE_NETWORK_PEER_RATE`, `LORE_NETWORK_MAX_BYTES`).
 */
export interface HubLimits {
  maxConnections: number;
  maxSubscriptions: number;
  maxPayload: number;
  maxLeafnodes: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = {
  maxConnections: 2,
  maxSubscriptions: 200,
  maxPayload: 256 * 1024,
  maxLeafnodes: 3,
};

const ACCOUNT = /^[a-z0-9-]{1,40}$/;

export const hubPasswordVariable = (account: string) =>
  `LORE_HUB_PASSWORD_${account.toUpperCase().replace(/-/g, '_')}`;

/** The local account of an operator's NATS that the leaf connection binds, and its link's user. */
export const NETWORK_ACCOUNT = 'NETWORK';
export const NETWORK_USER = 'network';
/** The local account of Lore's own users (services, node, aggregator, ops). */
export const LORE_ACCOUNT = 'LORE';

function validate(members: readonly NetworkMember[]): void {
  if (members.length < 2) throw new Error('--member: a network needs at least two operators');
  const nodes = new Map<string, string>();
  const accounts = new Set<string>();
  for (const m of members) {
    if (!ACCOUNT.test(m.account))
      throw new Error(`--member ${m.account}: account names are lower-case letters, digits and dashes`);
    if (accounts.has(m.account)) throw new Error(`--member ${m.account}: the account is listed twice`);
    accounts.add(m.account);
    if (!m.nodes.length)
      throw new Error(`--member ${m.account}: give its node ids (${m.account}=node-a,node-b)`);
    for (const n of m.nodes) {
      if (!NODE_ID.test(n))
        throw new Error(
          `--member ${m.account}: node id ${JSON.stringify(n)}: lower-case letters, digits and dashes`,
        );
      const other = nodes.get(n);
      if (other) throw new Error(`--member ${m.account}: node ${n} is already ${other}'s`);
      nodes.set(n, m.account);
    }
  }
}

const stream = (subject: string, accounts?: string[]) =>
  `{ stream: ${JSON.stringify(subject)}${accounts ? `, accounts: ${JSON.stringify(accounts)}` : ''} }`;
const service = (subject: string, accounts: string[]) =>
  `{ service: ${JSON.stringify(subject)}, accounts: ${JSON.stringify(accounts)} }`;
const importStream = (account: string, subject: string) =>
  `{ stream: { account: ${JSON.stringify(account)}, subject: ${JSON.stringify(subject)} } }`;
const importService = (account: string, subject: string) =>
  `{ service: { account: ${JSON.stringify(account)}, subject: ${JSON.stringify(subject)} } }`;

/**
 * The hub: one account per operator, each reached only through its own leaf login. An account
 * exports its nodes' directory announcements to everyone, and to each other operator exactly
 * the questions and answers that operator's nodes may send its nodes (a service the other
 * imports: the hub lets nobody else subscribe to it or send on it). It imports the others'
 * announcements and what its own nodes may send them. Nothing else is exported, so whatever
 * else an operator's leaf connection carries stays in its own account.
 */
export function renderHub(
  members: readonly NetworkMember[],
  options: { port?: number; leafPort?: number; limits?: Partial<HubLimits> } = {},
): string {
  validate(members);
  const limits = { ...DEFAULT_HUB_LIMITS, ...options.limits };
  const args = members.map((m) => ` --member ${m.account}=${m.nodes.join(',')}`).join('');
  const accounts = members.map((m) => {
    const others = members.filter((o) => o !== m);
    const exports = [
      ...m.nodes.map((n) => stream(netSubjects.dir(n))),
      ...m.nodes.flatMap((n) =>
        others.flatMap((o) =>
          o.nodes.flatMap((f) => [
            service(netSubjects.ask(n, f), [o.account]),
            service(netSubjects.answer(n, f), [o.account]),
          ]),
        ),
      ),
    ];
    const imports = others.flatMap((o) => [
      ...o.nodes.map((n) => importStream(o.account, netSubjects.dir(n))),
      ...o.nodes.flatMap((to) =>
        m.nodes.flatMap((f) => [
          importService(o.account, netSubjects.ask(to, f)),
          importService(o.account, netSubjects.answer(to, f)),
        ]),
      ),
    ]);
    return [
      `  ${JSON.stringify(m.account)}: {`,
      '    limits: {',
      `      max_connections: ${limits.maxConnections}`,
      `      max_subscriptions: ${limits.maxSubscriptions}`,
      `      max_payload: ${limits.maxPayload}`,
      `      max_leafnodes: ${limits.maxLeafnodes}`,
      '    }',
      `    exports: [\n${exports.map((e) => `      ${e}`).join('\n')}\n    ]`,
      `    imports: [\n${imports.map((e) => `      ${e}`).join('\n')}\n    ]`,
      '  }',
    ].join('\n');
  });
  const leafUsers = members.map(
    (m) =>
      `      { user: ${JSON.stringify(m.account)}, password: $${hubPasswordVariable(m.account)}, account: ${JSON.stringify(m.account)} }`,
  );
  return [
    header(args, 'nats:hub').trimEnd(),
    `# Each operator's leaf login reads its password from ${hubPasswordVariable('<account>')}.`,
    `listen: 127.0.0.1:${options.port ?? 4222}`,
    'leafnodes {',
    `  listen: "0.0.0.0:${options.leafPort ?? 7422}"`,
    '  authorization {',
    `    users: [\n${leafUsers.join('\n')}\n    ]`,
    '  }',
    '}',
    `accounts {\n${accounts.join('\n')}\n}`,
    '',
  ].join('\n');
}

/**
 * An operator's server on the network: Lore's own users (as `pnpm nats:config --nodes`
 * renders them) in the account `LORE` with JetStream, the network link's user in `NETWORK`,
 * and one leaf connection to the hub bound to `NETWORK`. `LORE` exports and imports nothing.
 */
export function renderLeaf(options: {
  hub: string;
  account: string;
  password: string;
  nodes: readonly string[];
  port?: number;
  /** JetStream's store (else nats-server's `-sd`, or its default). */
  store?: string;
}): string {
  const { account, nodes } = options;
  if (!ACCOUNT.test(account)) throw new Error(`--account ${account}: lower-case letters, digits and dashes`);
  if (!nodes.length) throw new Error('--nodes: give the ids of your Lore nodes, separated by commas');
  for (const n of nodes)
    if (!NODE_ID.test(n))
      throw new Error(`--nodes: node id ${JSON.stringify(n)}: lower-case letters, digits and dashes`);
  let hub: URL;
  try {
    hub = new URL(options.hub);
  } catch {
    throw new Error(`--hub ${options.hub}: not a URL (nats-leaf://host:7422)`);
  }
  if (!['nats-leaf:', 'tls:'].includes(hub.protocol) || !hub.hostname)
    throw new Error(`--hub ${options.hub}: a nats-leaf://host:port (or tls://host:port) URL`);
  if (!options.password)
    throw new Error('LORE_HUB_PASSWORD: the hub password you were given for your account');
  hub.username = account;
  hub.password = options.password;
  const users = NATS_USERS.map((u) => userBlock(u, permissionsFor(u, nodes)).replace(/^/gm, '  '));
  const network = userBlock(NETWORK_USER, networkUserPermissions(nodes)).replace(/^/gm, '  ');
  return [
    header(` --hub ${options.hub} --account ${account} --nodes ${nodes.join(',')}`, 'nats:leaf').trimEnd(),
    '# Holds the hub password of your account: keep it as a secret.',
    `listen: 127.0.0.1:${options.port ?? 4222}`,
    options.store ? `jetstream { store_dir: ${JSON.stringify(options.store)} }` : 'jetstream: enabled',
    'accounts {',
    `  ${LORE_ACCOUNT}: {`,
    '    jetstream: enabled',
    `    users: [\n${users.join('\n')}\n    ]`,
    '  }',
    `  ${NETWORK_ACCOUNT}: {`,
    `    users: [\n${network}\n    ]`,
    '  }',
    '}',
    'leafnodes {',
    `  remotes: [\n    { url: ${JSON.stringify(hub.toString())}, account: ${JSON.stringify(NETWORK_ACCOUNT)} }\n  ]`,
    '}',
    '',
  ].join('\n');
}

function parseMembers(values: string[]): NetworkMember[] {
  return values.map((v) => {
    const [account, nodes] = v.split('=');
    if (!account || nodes === undefined) throw new Error(`--member ${v}: <account>=<node,node…>`);
    return { account, nodes: nodes.split(',').filter(Boolean) };
  });
}

export function hubMain(argv: string[]): string {
  const { values } = parseArgs({
    args: argv,
    options: {
      member: { type: 'string', multiple: true },
      port: { type: 'string' },
      'leaf-port': { type: 'string' },
      'max-payload': { type: 'string' },
      'max-leafnodes': { type: 'string' },
    },
    strict: true,
  });
  const port = values.port ? Number(values.port) : undefined;
  const leafPort = values['leaf-port'] ? Number(values['leaf-port']) : undefined;
  for (const [name, v] of [
    ['--port', port],
    ['--leaf-port', leafPort],
  ] as const)
    if (v !== undefined && !(Number.isInteger(v) && v > 0 && v < 65536))
      throw new Error(`${name}: a port number`);
  const maxPayload = values['max-payload'] ? Number(values['max-payload']) : undefined;
  if (maxPayload !== undefined && !(Number.isInteger(maxPayload) && maxPayload > 0))
    throw new Error('--max-payload: a number of bytes');
  const maxLeafnodes = values['max-leafnodes'] ? Number(values['max-leafnodes']) : undefined;
  if (maxLeafnodes !== undefined && !(Number.isInteger(maxLeafnodes) && maxLeafnodes > 0))
    throw new Error('--max-leafnodes: how many leaf connections each operator may open');
  return renderHub(parseMembers(values.member ?? []), {
    ...(port ? { port } : {}),
    ...(leafPort ? { leafPort } : {}),
    limits: { ...(maxPayload ? { maxPayload } : {}), ...(maxLeafnodes ? { maxLeafnodes } : {}) },
  });
}

export function leafMain(argv: string[], env: Record<string, string | undefined>): string {
  const { values } = parseArgs({
    args: argv,
    options: {
      hub: { type: 'string' },
      account: { type: 'string' },
      nodes: { type: 'string' },
      port: { type: 'string' },
      store: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  if (!values.hub) throw new Error('--hub: the hub address you were given (nats-leaf://host:7422)');
  if (!values.account) throw new Error('--account: the account name you were given');
  const port = values.port ? Number(values.port) : undefined;
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new Error('--port: a port number');
  return renderLeaf({
    hub: values.hub,
    account: values.account,
    password: env.LORE_HUB_PASSWORD ?? '',
    nodes: (values.nodes ?? '').split(',').filter(Boolean),
    ...(port ? { port } : {}),
    ...(values.store ? { store: values.store } : {}),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command === 'hub') process.stdout.write(hubMain(rest));
    else if (command === 'leaf') {
      const out = parseArgs({ args: rest, options: { out: { type: 'string' } }, strict: false }).values.out;
      const text = leafMain(rest, process.env);
      if (typeof out === 'string') writeFileSync(out, text, { mode: 0o600 });
      else process.stdout.write(text);
    } else
      throw new Error(
        'usage: network.ts hub --member <account>=<node,…> … | leaf --hub <url> --account <a> --nodes <n,…>',
      );
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
}
