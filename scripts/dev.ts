/**
 * `pnpm dev`: the Kubernetes topology on one machine. Every service runs as its own process
 * on its own port with its own database under ./data/dev/<service>, all on the local NATS,
 * sharing one node identity; the aggregator runs in distributed mode in front of them
 * (LORE_SERVICES) at http://127.0.0.1:7400/mcp (LORE_PORT moves the aggregator, and the
 * services with it: base+1 … base+8). Logs are prefixed and coloured per process.
 * Ctrl-C stops everything.
 *
 *   pnpm dev                     # every service + the aggregator
 *   pnpm dev users queries       # only these services (+ the aggregator)
 *   pnpm dev --no-watch          # without restarting a process when its sources change (tsx watch)
 *   pnpm dev --no-aggregator     # services only
 *
 * NATS: without NATS_URL, a nats-server with the shipped configuration (infra/nats) runs on the
 * base port + 9 with its store under ./data/dev/nats, and each process connects as its own NATS
 * user (passwords made once, in ./data/dev/nats-passwords.json); its auth.conf is rendered for
 * this node (`pnpm nats:config --nodes <id>`), so each service may touch only its own durable
 * consumers; the `ops` user provisions JetStream (`lore jetstream provision`) before any service
 * starts. With NATS_URL, that server is
 * used and the processes take their credentials (NATS_USER/NATS_PASSWORD, NATS_CREDS, …, or
 * LORE_NATS_INSECURE=true) from the environment.
 * LORE_NODE_ID (default `dev`), LORE_PORT (default 7400) and LORE_LOG_LEVEL are taken from the
 * environment; every other LORE_* variable is passed through as is.
 *
 * With LORE_NETWORK_NATS_URL (a node on a network of several operators), the network link runs
 * as its own process too (`lore network link`, base port + 10), as the `link` NATS user.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runJetStreamCli } from '@lore/kit/nats';
import type { LoreConfig } from '../packages/kit/src/config.js';
import { loadNodeIdentity } from '../packages/kit/src/node.js';
import { natsPasswords, natsUp, startNats } from './dev-nats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each process's offset from the base port (LORE_PORT, 7400 by default): the aggregator on the base. */
const OFFSETS = {
  aggregator: 0,
  users: 1,
  queries: 2,
  approvals: 3,
  knowledge: 4,
  dens: 5,
  dms: 6,
  showcase: 7,
  docs: 8,
  // base + 9 is NATS; the network link (only with LORE_NETWORK_NATS_URL) serves its health checks here.
  network: 10,
} as const;
type Name = keyof typeof OFFSETS;
const SERVICES: Name[] = (Object.keys(OFFSETS) as Name[]).filter(
  (n) => n !== 'aggregator' && n !== 'network',
);

/** The ports for a base port: the aggregator on it, each service on the next ones (7401…7408 by default). */
export function devPorts(base = 7400): Record<Name, number> {
  return Object.fromEntries(Object.entries(OFFSETS).map(([n, o]) => [n, base + o])) as Record<Name, number>;
}
export const DEV_PORTS = devPorts();

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
const PALETTE = [36, 32, 33, 35, 34, 96, 92, 93, 95];
const LEVELS: Record<number, [string, number]> = {
  10: ['TRACE', 90],
  20: ['DEBUG', 90],
  30: ['INFO ', 32],
  40: ['WARN ', 33],
  50: ['ERROR', 31],
  60: ['FATAL', 35],
};
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

/** One pino JSON line as `12:01:02 INFO  message key=value …`; anything else as it came. */
export function formatLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const [label, code] = LEVELS[Number(rec.level)] ?? ['     ', 0];
  const time = typeof rec.time === 'number' ? new Date(rec.time).toTimeString().slice(0, 8) : '';
  const extra = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${paint(90, `${k}=`)}${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${paint(90, time)} ${paint(code, label)} ${String(rec.msg ?? '')}${extra ? ` ${extra}` : ''}`;
}

async function healthy(port: number, timeoutMs: number, alive: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && alive()) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

interface Proc {
  name: Name;
  child: ChildProcess;
}

const DEV_USAGE =
  'Usage: pnpm dev [--no-watch] [--no-aggregator] [service…]  (LORE_PORT: base port, default 7400)';

/** A command-line or environment mistake: one line with the usage, exit code 2. */
class UsageError extends Error {}

/**
 * The base port from LORE_PORT (7400 when unset or empty): digits only, and room above it for the
 * services and NATS (base + 8), so `abc`, `1e3`, `0x1f` or `70000` is a usage error naming it.
 */
export function devBasePort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 7400;
  const base = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(base) || base < 1 || base > 65_535 - 10)
    throw new UsageError(
      `LORE_PORT must be a port number from 1 to 65525 (the base of pnpm dev's ports), got '${value}'`,
    );
  return base;
}

async function main(argv: string[]) {
  const parsed = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        strict: true,
        options: { 'no-watch': { type: 'boolean' }, 'no-aggregator': { type: 'boolean' } },
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  })();
  const { values, positionals: asked } = parsed;
  // Sources are watched unless asked not to: a change restarts the process that runs it.
  const watch = !values['no-watch'];
  const withAggregator = !values['no-aggregator'];
  const base = devBasePort(process.env.LORE_PORT);
  const ports = devPorts(base);
  for (const a of asked) {
    if (!SERVICES.includes(a as Name))
      throw new UsageError(`unknown service ${a} (have: ${SERVICES.join(', ')})`);
  }
  const wanted = asked.length ? (asked as Name[]) : SERVICES;
  const present = wanted.filter((s) => existsSync(join(ROOT, 'packages', s, 'src', 'main.ts')));
  for (const s of wanted.filter((w) => !present.includes(w)))
    process.stderr.write(`dev: packages/${s}/src/main.ts does not exist yet; ${s} is left out\n`);

  // One node identity for every process: the directory holds one signing key per node id.
  const dataRoot = resolve(ROOT, 'data', 'dev');
  mkdirSync(dataRoot, { recursive: true });
  const nodeId = process.env.LORE_NODE_ID || 'dev';
  let natsUrl = process.env.NATS_URL ?? '';
  let passwords: Record<string, string> | undefined;
  let natsChild: ChildProcess | undefined;
  if (natsUrl) {
    if (!(await natsUp(natsUrl.split(',')[0]!))) {
      process.stderr.write(`dev: nothing answers at ${natsUrl}; unset NATS_URL to run the shipped NATS\n`);
      process.exit(1);
    }
  } else {
    passwords = natsPasswords(join(dataRoot, 'nats-passwords.json'));
    const nats = await startNats(base + 9, dataRoot, passwords, nodeId);
    natsUrl = nats.url;
    natsChild = nats.child;
    // The operator's step: the event stream and buckets, which no service login may create or change.
    const provisioned = await runJetStreamCli(['provision'], {
      natsUrl,
      env: { NATS_USER: 'ops', NATS_PASSWORD: passwords.ops! },
      stdout: new PassThrough(),
      stderr: process.stderr,
    });
    if (provisioned !== 0) process.exit(1);
  }
  const natsCredentials = (name: Name): Record<string, string> => {
    // The link connects as its own user, `link` (infra/nats/permissions.ts).
    const user = name === 'network' ? 'link' : name;
    return passwords ? { NATS_USER: user, NATS_PASSWORD: passwords[user]! } : {};
  };
  const node = loadNodeIdentity({ LORE_DATA_DIR: dataRoot, LORE_NODE_ID: nodeId } as LoreConfig);
  const identity = join(dataRoot, 'node.json');
  const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
  const level = process.env.LORE_LOG_LEVEL || 'info';
  const procs: Proc[] = [];
  let stopping = false;
  const width = Math.max(...[...present, 'aggregator', 'network'].map((n) => n.length));

  const start = (name: Name, entry: string, args: string[], env: Record<string, string>) => {
    const dataDir = join(dataRoot, name);
    mkdirSync(dataDir, { recursive: true });
    const own = join(dataDir, 'node.json');
    if (!existsSync(own) || readFileSync(own, 'utf8') !== readFileSync(identity, 'utf8'))
      copyFileSync(identity, own);
    const child = spawn(tsx, [...(watch ? ['watch'] : []), '--conditions=development', entry, ...args], {
      cwd: ROOT,
      // Its own process group: Ctrl-C reaches only this script, which stops the children in turn.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NATS_URL: natsUrl,
        LORE_NODE_ID: nodeId,
        LORE_LOG_LEVEL: level,
        LORE_DATA_DIR: dataDir,
        LORE_PORT: String(ports[name]),
        ...natsCredentials(name),
        ...env,
      },
    });
    const index = [...present, 'aggregator', 'network'].indexOf(name);
    const prefix = paint(PALETTE[index % PALETTE.length]!, `${name.padEnd(width)} │`);
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) =>
        process.stdout.write(`${prefix} ${formatLine(line)}\n`),
      );
    }
    child.on('exit', (code, signal) => {
      if (!stopping) process.stdout.write(`${prefix} ${paint(31, `exited (${signal ?? code})`)}\n`);
    });
    procs.push({ name, child });
    return child;
  };

  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\ndev: stopping…\n');
    const running = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    await Promise.all(
      running.map(
        (p) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              try {
                process.kill(-p.child.pid!, 'SIGKILL');
              } catch {}
            }, 10_000);
            p.child.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            // tsx passes the signal on to the server it runs.
            p.child.kill('SIGTERM');
          }),
      ),
    );
    natsChild?.kill('SIGTERM');
    process.exit(0);
  };
  process.on('SIGINT', () => void stopAll());
  process.on('SIGTERM', () => void stopAll());
  process.on('exit', () => {
    natsChild?.kill('SIGKILL');
    for (const p of procs) {
      try {
        if (p.child.exitCode === null) process.kill(-p.child.pid!, 'SIGKILL');
      } catch {}
    }
  });

  process.stdout.write(
    `dev: node ${node.id}, NATS ${natsUrl}, data under ${dataRoot}\n` +
      `dev: starting ${present.map((s) => `${s}:${ports[s]}`).join(' ')}\n`,
  );
  // The docs process serves Lore's own documentation as the corpus `lore`, as `pnpm start` does.
  for (const s of present)
    start(s, join('packages', s, 'src', 'main.ts'), [], s === 'docs' ? { LORE_DOCS_OWN_ROOT: ROOT } : {});
  const up = await Promise.all(
    procs.map(async (p) => ({
      name: p.name,
      ok: await healthy(ports[p.name], 90_000, () => p.child.exitCode === null),
    })),
  );
  for (const u of up.filter((x) => !x.ok))
    process.stderr.write(`dev: ${u.name} is not healthy; the aggregator will retry it\n`);
  // One link for the node, beside the services (it carries their questions and answers).
  if (process.env.LORE_NETWORK_NATS_URL && !stopping)
    start('network', join('apps', 'aggregator', 'src', 'main.ts'), ['network', 'link'], {});
  if (!withAggregator || stopping) return;
  const services = present.map((s) => `${s}=http://127.0.0.1:${ports[s]}/mcp`).join(',');
  start('aggregator', join('apps', 'aggregator', 'src', 'main.ts'), ['start'], { LORE_SERVICES: services });
  if (await healthy(ports.aggregator, 90_000, () => procs.at(-1)?.child.exitCode === null))
    process.stdout.write(
      `dev: Lore is up at http://127.0.0.1:${ports.aggregator}/mcp (Ctrl-C stops everything)\n`,
    );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`dev: ${err.message}. ${DEV_USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`dev: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
