/**
 * `pnpm nats:hub` and `pnpm nats:leaf` as an operator runs them: the files they print are what
 * nats-server 2.9 accepts (`nats-server -t`), export and import only the network's subjects,
 * and bad arguments are refused naming the argument. The configurations at work (a hub and
 * three operators) are in operators.test.ts (`pnpm test:faults`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NatsServerProcess, tempDir } from '@lore/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { hubMain, leafMain } from '../../../infra/nats/network.js';
import { ROOT } from './helpers.js';

const TSX = join(ROOT, 'node_modules/.bin/tsx');
const NETWORK_TS = join(ROOT, 'infra/nats/network.ts');
const USERS = [
  'users',
  'queries',
  'approvals',
  'knowledge',
  'dens',
  'dms',
  'showcase',
  'docs',
  'aggregator',
  // The network link run as its own process (`lore network link`), in LORE.
  'link',
  'node',
  'ops',
  'network',
];
/** The command's own argument handling, in-process (the rendering itself runs as the command). */
const run = (args: string[], env: Record<string, string> = {}) => {
  const [command, ...rest] = args;
  try {
    if (command === 'hub') hubMain(rest);
    else leafMain(rest, env);
    return { status: 0, stderr: '' };
  } catch (e) {
    return { status: 2, stderr: (e as Error).message };
  }
};
const render = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(TSX, [NETWORK_TS, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

const dir = tempDir('lore-nats-network-');
afterAll(() => dir.cleanup());

/** `nats-server -t`: the file parses and every variable it names is set. */
function valid(text: string, env: Record<string, string>): { ok: boolean; out: string } {
  const file = join(dir.path, `t-${Math.random().toString(36).slice(2)}.conf`);
  writeFileSync(file, text);
  const r = spawnSync(NatsServerProcess.binaryPath()!, ['-t', '-c', file], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

const subjectsOf = (text: string, kind: 'stream' | 'service') =>
  [...text.matchAll(new RegExp(`${kind}: (?:\\{ account: "[^"]+", subject: )?"([^"]+)"`, 'g'))].map(
    (m) => m[1]!,
  );

describe('pnpm nats:hub', () => {
  const hub = render([
    'hub',
    '--member',
    'op-a=node-a',
    '--member',
    'op-b=node-b,node-b2',
    '--member',
    'op-c=node-c',
  ]);
  const account = (name: string) => hub.slice(hub.indexOf(`"${name}": {`)).split(/\n {2}"op-/)[0]!;

  it.skipIf(!NatsServerProcess.binaryAvailable())(
    'is a configuration nats-server accepts, with each account’s password from its variable',
    () => {
      const env = {
        LORE_HUB_PASSWORD_OP_A: 'pa',
        LORE_HUB_PASSWORD_OP_B: 'pb',
        LORE_HUB_PASSWORD_OP_C: 'pc',
      };
      expect(valid(hub, env)).toMatchObject({ ok: true });
      const { LORE_HUB_PASSWORD_OP_C: _, ...missing } = env;
      expect(valid(hub, missing).out).toMatch(/LORE_HUB_PASSWORD_OP_C/);
    },
  );

  it('exports and imports only the network’s subjects, each account bound to its own leaf login', () => {
    for (const s of [...subjectsOf(hub, 'stream'), ...subjectsOf(hub, 'service')])
      expect(s).toMatch(/^lore\.net\./);
    expect(hub).toContain('{ user: "op-a", password: $LORE_HUB_PASSWORD_OP_A, account: "op-a" }');
    const a = account('op-a');
    // A's node announces to everyone; only B's nodes may ask or answer A's node on their subjects.
    expect(a).toContain('{ stream: "lore.net.dir.node-a" }');
    expect(a).toContain('{ service: "lore.net.ask.node-a.node-b2", accounts: ["op-b"] }');
    expect(a).toContain('{ service: "lore.net.answer.node-a.node-c", accounts: ["op-c"] }');
    expect(a).not.toMatch(/service: "lore\.net\.ask\.node-a\.node-a"/);
    // What A's node may send B's node, imported from B; nothing of B's addressed to anyone else.
    expect(a).toContain('{ service: { account: "op-b", subject: "lore.net.ask.node-b2.node-a" } }');
    expect(a).not.toContain('lore.net.ask.node-b.node-c');
    expect(a).toMatch(
      /max_leafnodes: 3[\s\S]*max_payload: 262144|max_payload: 262144[\s\S]*max_leafnodes: 3/,
    );
  });

  it('refuses bad members, naming the argument', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--member', 'op-a=node-a'], /--member: a network needs at least two operators/],
      [
        ['--member', 'op-a=node-a', '--member', 'op-b=node-a'],
        /--member op-b: node node-a is already op-a's/,
      ],
      [['--member', 'Op A=node-a', '--member', 'op-b=node-b'], /--member Op A: account names/],
      [['--member', 'op-a=node_a', '--member', 'op-b=node-b'], /--member op-a: node id "node_a"/],
      [['--member', 'op-a', '--member', 'op-b=node-b'], /--member op-a: <account>=<node,node…>/],
      [
        ['--member', 'op-a=node-a', '--member', 'op-b=node-b', '--leaf-port', 'x'],
        /--leaf-port: a port number/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = run(['hub', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('pnpm nats:leaf', () => {
  const env = { LORE_HUB_PASSWORD: 'hubsecret' };
  const leaf = render(
    ['leaf', '--hub', 'nats-leaf://hub.example.org:7422', '--account', 'op-a', '--nodes', 'node-a'],
    env,
  );

  it.skipIf(!NatsServerProcess.binaryAvailable())(
    'is a configuration nats-server accepts, with Lore’s users and the network user',
    () => {
      const passwords = Object.fromEntries(
        USERS.map((u) => [`LORE_NATS_PASSWORD_${u.toUpperCase()}`, `pw${u}`]),
      );
      expect(valid(leaf, passwords)).toMatchObject({ ok: true });
    },
  );

  it('binds the leaf connection to NETWORK, which shares nothing with LORE', () => {
    expect(leaf).toContain('{ url: "nats-leaf://op-a:hubsecret@hub.example.org:7422", account: "NETWORK" }');
    expect(leaf).not.toMatch(/exports|imports/);
    const lore = leaf.slice(leaf.indexOf('LORE: {'), leaf.indexOf('NETWORK: {'));
    for (const u of USERS.filter((u) => u !== 'network')) expect(lore).toContain(`user: "${u}"`);
    const network = leaf.slice(leaf.indexOf('NETWORK: {'), leaf.indexOf('leafnodes {'));
    expect(network).toContain('user: "network"');
    // The link may send only as its own node, and hear only what is addressed to it.
    expect(network).toContain('"lore.net.ask.*.node-a"');
    expect(network).toContain('"lore.net.ask.node-a.*"');
    expect(network).not.toMatch(/"lore\.net\.>"|"lore\.>"|"\$JS/);
  });

  it('writes the file (it holds the hub password) readable by its owner only', () => {
    const out = join(dir.path, 'nats.conf');
    render(
      [
        'leaf',
        '--hub',
        'nats-leaf://hub.example.org:7422',
        '--account',
        'op-a',
        '--nodes',
        'node-a',
        '--out',
        out,
      ],
      env,
    );
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toBe(leaf);
  });

  it('refuses bad arguments, naming them', () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--account', 'op-a', '--nodes', 'node-a'], env, /--hub: the hub address/],
      [
        ['--hub', 'http://hub:7422', '--account', 'op-a', '--nodes', 'node-a'],
        env,
        /--hub http:\/\/hub:7422: a nats-leaf:\/\//,
      ],
      [['--hub', 'nats-leaf://hub:7422', '--nodes', 'node-a'], env, /--account: the account name/],
      [['--hub', 'nats-leaf://hub:7422', '--account', 'op-a'], env, /--nodes: give the ids/],
      [
        ['--hub', 'nats-leaf://hub:7422', '--account', 'op-a', '--nodes', 'Node A'],
        env,
        /--nodes: node id "Node A"/,
      ],
      [
        ['--hub', 'nats-leaf://hub:7422', '--account', 'op-a', '--nodes', 'node-a'],
        { LORE_HUB_PASSWORD: '' },
        /LORE_HUB_PASSWORD/,
      ],
    ];
    for (const [args, e, message] of cases) {
      const r = run(['leaf', ...args], e);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
