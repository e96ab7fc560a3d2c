// How a parser runs: a worker thread, or a child process with its own heap (the default).
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ParseLimits } from './limits.js';
import { threadCpuMs } from './thread-cpu.js';

/**
 * The parser thread's entry. From TypeScript sources (tests, `tsx`) the worker loads the `.ts`
 * file through tsx's loader; from the built package it is `parse-worker.js` beside this chunk.
 */
function workerSpec(): { entry: URL | string; eval: boolean; execArgv?: string[] } {
  if (fromSources()) {
    const api = tsxEsmApi();
    const entry = new URL('./parse-worker.ts', import.meta.url).href;
    return {
      entry: `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`,
      eval: true,
      // Workspace packages a task module imports resolve to their sources, as in the caller.
      execArgv: workerExecArgv(),
    };
  }
  return { entry: new URL('./parse-worker.js', import.meta.url), eval: false };
}

const fromSources = () => import.meta.url.endsWith('.ts');

/**
 * The process's Node options that a worker accepts (per-process V8 flags such as `--expose-gc`
 * make `new Worker` throw when passed explicitly), with the `development` condition added.
 */
function workerExecArgv(): string[] {
  const kept = process.execArgv.filter((a) => !PROCESS_ONLY_FLAG.test(a));
  return kept.includes('--conditions=development') ? kept : [...kept, '--conditions=development'];
}

const PROCESS_ONLY_FLAG =
  /^--(?:expose[-_]gc|max[-_]old[-_]space[-_]size|max[-_]semi[-_]space[-_]size|stack[-_]size|inspect|title)\b/;

/** tsx's ESM register API as an `import()` target (require.resolve would name its CommonJS twin). */
function tsxEsmApi(): string {
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api']!.import.default)).href;
}

/** What the pool needs of a parser, a worker thread or a child process alike. */
export interface Parser extends EventEmitter {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<unknown>;
  /** CPU milliseconds of the parser's thread `tid` (for a process, its main thread). */
  cpuMs(tid: number): number | undefined;
  /** A parser process's id (a thread has none of its own). */
  readonly pid?: number;
}

/** A worker thread under `resourceLimits`. */
export function parserThread(limits: ParseLimits): Parser {
  const spec = workerSpec();
  const worker = new Worker(spec.entry, {
    eval: spec.eval,
    ...(spec.execArgv ? { execArgv: spec.execArgv } : {}),
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: youngGenerationMb(limits),
      stackSizeMb: 4,
    },
    stdout: false,
    stderr: false,
  });
  return Object.assign(worker, { cpuMs: (tid: number) => threadCpuMs(tid) });
}

const youngGenerationMb = (limits: ParseLimits) => Math.min(64, Math.max(8, Math.round(limits.memoryMb / 8)));

/**
 * A child process of Node with the same entry, heap limits as V8 flags and the IPC channel as
 * its port (structured clone). When its heap runs out, V8 aborts that process alone: the pool
 * reads the reason off its last words on stderr.
 */
export function parserProcess(limits: ParseLimits): Parser {
  const spec = workerSpec();
  const heap = [
    `--max-old-space-size=${limits.memoryMb}`,
    `--max-semi-space-size=${Math.max(1, Math.round(youngGenerationMb(limits) / 3))}`,
    '--stack-size=3900',
  ];
  const args = spec.eval
    ? [...heap, ...(spec.execArgv ?? []), '--input-type=module', '--eval', spec.entry as string]
    : [...heap, fileURLToPath(spec.entry)];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  return new ParserProcess(child);
}

class ParserProcess extends EventEmitter implements Parser {
  /** The end of what the process wrote to stderr: V8 says there why it aborted. */
  private lastWords = '';

  constructor(private readonly child: ChildProcess) {
    super();
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.lastWords = (this.lastWords + text).slice(-4096);
    });
    // A pipe keeps the event loop alive: this one must not keep the pool's process running.
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    child.on('message', (value) => this.emit('message', value));
    child.on('error', (err) => this.emit('error', err));
    // 'close' comes after the process's stderr has been read to its end.
    child.on('close', (code, signal) => {
      if (
        signal === 'SIGABRT' ||
        /heap out of memory|Reached heap limit|Allocation failed/i.test(this.lastWords)
      ) {
        const err = Object.assign(new Error('the parser process ran out of memory'), {
          code: 'ERR_PARSER_OUT_OF_MEMORY',
        });
        this.emit('error', err);
      }
      this.emit('exit', code ?? signal);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(value: unknown) {
    if (this.child.connected) this.child.send(value as object);
  }

  ref() {
    this.child.ref();
    this.child.channel?.ref();
  }

  unref() {
    this.child.unref();
    this.child.channel?.unref();
  }

  cpuMs(tid: number) {
    return this.child.pid === undefined ? undefined : threadCpuMs(tid, this.child.pid);
  }

  terminate(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      // Held until it is gone, so a caller awaiting this keeps the event loop.
      this.ref();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}
