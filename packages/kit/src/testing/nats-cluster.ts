import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { freePort, NatsServerProcess, provisionAsOps, reachable } from './nats.js';
import type { NatsAuthFixture } from './nats-auth.js';

export interface NatsClusterOptions {
  /** Servers in the cluster. Default 3 (JetStream needs a majority: three tolerate the loss of one). */
  size?: number;
  /** The cluster's name (`cluster.name`). Default `lore`. */
  name?: string;
  /**
   * More configuration, appended to every server's file as is: accounts and users with their
   * permissions (authorization), TLS. Clients then need the matching credentials.
   */
  extraConfig?: string;
  /** The shipped users and permissions, with their passwords in each server's environment. */
  auth?: NatsAuthFixture;
}

/** One server of a {@link NatsCluster}: it keeps its ports and store across kill and start. */
export class NatsClusterNode {
  private child: ChildProcess | undefined;
  private log = '';

  constructor(
    readonly name: string,
    readonly port: number,
    readonly clusterPort: number,
    readonly configFile: string,
    private readonly env: Record<string, string> = {},
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get output(): string {
    return this.log;
  }

  async start(): Promise<void> {
    const bin = NatsServerProcess.binaryPath();
    if (!bin) throw new Error('nats-server is not installed');
    const child = spawn(bin, ['-c', this.configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env },
    });
    this.child = child;
    const keep = (d: Buffer) => {
      this.log = (this.log + d.toString()).slice(-8000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`nats-server ${this.name} exited:\n${this.log}`);
      if (await reachable(this.url, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server ${this.name} did not start on ${this.port}:\n${this.log}`);
  }

  /** SIGKILL: the server dies mid-stream, as in a crash. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

/**
 * A JetStream cluster of nats-servers on loopback, each with its own store, routed to the
 * others (`cluster { routes }`), as the Kubernetes StatefulSet runs them. Clients connect with
 * `url` (every server, comma-separated) and create streams and KV buckets with three replicas.
 */
export class NatsCluster {
  private constructor(
    readonly nodes: NatsClusterNode[],
    readonly auth?: NatsAuthFixture,
  ) {}

  /** Every server's URL, comma-separated: what `NATS_URL` holds for a cluster. */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  node(name: string): NatsClusterNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no NATS server named ${name}`);
    return n;
  }

  static async start(root: string, options: NatsClusterOptions = {}): Promise<NatsCluster> {
    const size = options.size ?? 3;
    const clusterName = options.name ?? 'lore';
    const ports = await distinctPorts(size * 2);
    const specs = Array.from({ length: size }, (_, i) => ({
      name: `n${i + 1}`,
      port: ports[2 * i]!,
      clusterPort: ports[2 * i + 1]!,
    }));
    const nodes = specs.map((s) => {
      const dir = join(root, s.name);
      mkdirSync(join(dir, 'jetstream'), { recursive: true });
      const routes = specs
        .filter((o) => o.name !== s.name)
        .map((o) => `nats-route://127.0.0.1:${o.clusterPort}`);
      const file = join(dir, 'nats.conf');
      if (options.auth) copyFileSync(options.auth.configFile, join(dir, 'auth.conf'));
      writeFileSync(
        file,
        [
          `server_name: ${s.name}`,
          `listen: 127.0.0.1:${s.port}`,
          `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
          'cluster {',
          `  name: ${clusterName}`,
          `  listen: 127.0.0.1:${s.clusterPort}`,
          `  routes: [${routes.join(', ')}]`,
          '}',
          // nats-server resolves includes relative to the including file.
          options.auth ? 'include "auth.conf"' : '',
          options.extraConfig ?? '',
          '',
        ].join('\n'),
      );
      return new NatsClusterNode(s.name, s.port, s.clusterPort, file, options.auth?.serverEnv);
    });
    const cluster = new NatsCluster(nodes, options.auth);
    try {
      await Promise.all(nodes.map((n) => n.start()));
      await cluster.ready();
      // With the shipped users, the operator sets JetStream up (replicated on every server)
      // before any service starts, as the Kubernetes Job does.
      if (options.auth) await provisionAsOps(cluster.url, options.auth, { replicas: size });
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /**
   * Waits until JetStream answers through the cluster (a meta leader is elected), as a client
   * would see it: after a start, or after a server came back.
   */
  async ready(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      let nc: NatsConnection | undefined;
      try {
        nc = await connect({
          servers: this.nodes.filter((n) => n.running).map((n) => n.url),
          timeout: 2000,
          ...(this.auth ? this.auth.client('ops') : {}),
        });
        const jsm = await jetstreamManager(nc, { timeout: 2000 });
        await jsm.getAccountInfo();
        // A meta leader alone is not enough: a replicated stream is placed only once every running
        // server has joined the meta group, so place (and drop) one as a client would.
        const replicas = this.nodes.filter((n) => n.running).length;
        const probe = `lore_ready_probe_${process.pid}`;
        await jsm.streams.add({ name: probe, subjects: [`${probe}.>`], num_replicas: replicas });
        await jsm.streams.delete(probe);
        return;
      } catch (err) {
        last = err;
      } finally {
        await nc?.close().catch(() => {});
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`JetStream did not answer through the cluster in ${timeoutMs} ms: ${String(last)}`);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
  }
}

/** `count` free loopback ports, all different (freePort alone may hand out one twice). */
async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
