import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MODERN_PROTOCOL_REVISION } from '@lore/schema';
import autocannon from 'autocannon';

export const ROOT = join(import.meta.dirname, '..');
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/esm/index.mjs')).href;

export interface Row {
  suite: string;
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run, and value/baseline. */
  baseline?: { name: string; value: number };
  ratio?: number;
  target?: string;
  met?: boolean;
}

export function row(r: Omit<Row, 'ratio'>): Row {
  return r.baseline ? { ...r, ratio: r.value / r.baseline.value } : r;
}

export interface Proc {
  child: ChildProcess;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Start a TypeScript entry as its own process; resolves when a line matches `ready`. */
export async function start(
  entry: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
  /**
   * Where workspace packages resolve: their TypeScript sources (`development`, as `pnpm dev` runs
   * them) or their compiled JavaScript (`built`, as `pnpm start` and the image run them).
   */
  packages: 'development' | 'built' = 'development',
): Promise<Proc> {
  const child = spawn(
    process.execPath,
    [
      ...(packages === 'development' ? ['--conditions=development'] : []),
      '--import',
      TSX,
      ...nodeArgs,
      entry,
      ...args,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${entry} did not start:\n${out}`)), timeoutMs);
    const on = (d: Buffer) => {
      out += d;
      const m = ready.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1] ?? '');
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}):\n${out}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    child,
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([done, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** CPU time a process has used so far (user + system), from /proc (ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size of a process, from /proc (MiB). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export interface LoadResult {
  rps: number;
  /** Requests completed in the window. */
  total: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** autocannon against one URL with a fixed request (loopback only). */
export async function load(
  url: string,
  opts: {
    connections: number;
    seconds: number;
    body?: string;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
  },
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    method: opts.method ?? 'POST',
    ...(opts.body ? { body: opts.body } : {}),
    headers: opts.headers ?? {},
  });
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Time `n` runs of `fn` (sequential) and return p50/p99 in ms. */
export async function timeIt(
  n: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number; mean: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  };
}

/** How the ladder and the profile tools run a Lore server: no rate limits, no NATS, its own docs not ingested. */
export const LADDER_ENV = {
  LORE_RATE_LIMITS: 'false',
  LORE_LOG_LEVEL: 'info',
  NATS_URL: '',
  LORE_INGEST_OWN_DOCS: 'false',
};

export const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': MODERN_PROTOCOL_REVISION,
};

/** A 2026-07-28 tools/call request body, as the v2 SDK client sends it. */
export function toolsCallBody(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'lore-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

export function fileExists(p: string) {
  return existsSync(p);
}

/** Runs `fn` over `items` with at most `n` in flight. */
export async function pool<T>(
  items: T[],
  n: number,
  fn: (item: T, i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}
