import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '../../..');
// `node --import tsx` rather than the tsx binary: one process, so a kill reaches the server itself.
const tsxLoader = pathToFileURL(
  [
    join(root, 'node_modules/tsx/dist/esm/index.mjs'),
    join(import.meta.dirname, '../node_modules/tsx/dist/esm/index.mjs'),
  ].find((p) => existsSync(p)) ?? 'tsx',
).href;

export interface Spawned {
  child: ChildProcess;
  url: string;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Start a TypeScript entry with tsx and wait for the line that names its URL. */
export function spawnTs(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  urlPattern = /listening (\S+)/,
  timeoutMs = 30_000,
  /** Sees the output so far each time the process writes, before the URL line appears. */
  progress?: (output: string) => void,
): Promise<Spawned> {
  return spawnNode(entry, args, env, {
    nodeArgs: ['--conditions=development', '--import', tsxLoader],
    urlPattern,
    timeoutMs,
    ...(progress ? { progress } : {}),
  });
}

export interface SpawnNodeOptions {
  /** Node's own arguments, before the entry. */
  nodeArgs?: string[];
  /** The line that names the URL; its first group is the URL. */
  urlPattern?: RegExp;
  timeoutMs?: number;
  /** Sees the output so far each time the process writes, before the URL line appears. */
  progress?: (output: string) => void;
  /** Working directory (default: this process's). */
  cwd?: string;
}

/** Start a JavaScript (or, with a loader in `nodeArgs`, TypeScript) entry and wait for its URL line. */
export async function spawnNode(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  { nodeArgs = [], urlPattern = /listening (\S+)/, timeoutMs = 30_000, progress, cwd }: SpawnNodeOptions = {},
): Promise<Spawned> {
  const child = spawn(process.execPath, [...nodeArgs, entry, ...args], {
    ...(cwd ? { cwd } : {}),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      // A server that never said where it listens must not outlive the test that waited for it.
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      progress?.(out);
      const m = urlPattern.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${entry} exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    url,
    output: () => out,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

export const FIXTURE = join(import.meta.dirname, 'fixtures/fixture-server.ts');
export const ROOT = root;
