import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_PARSE_LIMITS, type ParseLimit, ParseLimitError, type ParseLimits } from './limits.js';
import type { ParseReply, ParseTask, WorkerNotice } from './parse-worker.js';
import { threadCpuMs } from './thread-cpu.js';

export { threadCpuMs };

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

/** Time a parser may take to load a task module (tsx compiles it from sources) or pdf.js the first time. */
const MODULE_LOAD_MS = 60_000;

/** A task before the pool numbers it (Omit distributed over the union). */
type TaskInput = ParseTask extends infer T ? (T extends unknown ? Omit<T, 'id'> : never) : never;

interface Job {
  task: TaskInput;
  transfer: ArrayBuffer[];
  /** Receives the parts a `parts` module task sends before its result. */
  onPart?: (value: unknown) => void;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** What the pool needs of a parser, a worker thread or a child process alike. */
interface Parser extends EventEmitter {
  postMessage(value: unknown, transfer?: ArrayBuffer[]): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<unknown>;
  /** CPU milliseconds of the parser's thread `tid` (for a process, its main thread). */
  cpuMs(tid: number): number | undefined;
}

/**
 * Where documents are parsed. `process` (the default): a child process of Node with its own
 * heap limit (`--max-old-space-size`), so a document that exhausts it ends that process and
 * nothing else. `thread`: a worker thread with `resourceLimits`, cheaper to start, but V8 can
 * end the whole process when a worker's heap runs out during one large allocation (a 700 MiB
 * string does it: BENCHMARKS.md, "parser containment").
 */
export type ParserIsolation = 'process' | 'thread';

interface Slot {
  worker: Parser;
  /** The parser has loaded its modules (startup does not count against a document's time). */
  ready: boolean;
  /** The parser's Linux thread id (a process's: its pid), for reading its CPU time (undefined elsewhere). */
  tid?: number;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  /** Ends the parser once it has had no document for the pool's idle time. */
  idle?: NodeJS.Timeout;
}

/**
 * How long a parser with nothing to parse stays alive. A parser is a whole V8 isolate (a
 * process: about 110 MiB resident once it has parsed a PDF); most services parse in bursts
 * (an ingest) and then not at all, so an idle service keeps none and the next document starts
 * one again (a few hundred milliseconds).
 */
export const PARSER_IDLE_MS = 30_000;

/**
 * A few long-lived parsers, child processes by default (`isolation`). Each document runs in
 * one of them with a time limit (the parser is ended and replaced when it runs over) and a
 * heap limit (V8 ends the parser when it is exceeded), so a compression bomb or a
 * pathologically nested page costs its own caller a 400 and every other call — and
 * `/healthz` — nothing. What a PDF may inflate to is bounded before pdf.js reads it
 * (`scanPdfStreams`); the heap limit is what holds where that cannot see.
 *
 * The time limit counts the parser's own CPU time where Linux reports it: the parser runs at
 * the lowest priority, so on a busy machine a document that needs 200 ms of CPU may take
 * seconds of wall-clock time without being hostile. A wall-clock bound (`wallMs`) ends a
 * parser that makes no progress at all.
 */
export class ParserPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(
    readonly limits: ParseLimits = DEFAULT_PARSE_LIMITS,
    private readonly size = Math.max(1, Math.min(2, availableParallelism() - 1)),
    /** Milliseconds a parser with no document stays alive (`PARSER_IDLE_MS`). */
    private readonly idleMs = PARSER_IDLE_MS,
    readonly isolation: ParserIsolation = 'process',
  ) {
    if (!(idleMs > 0))
      throw new RangeError(`ParserPool: idleMs must be a positive number of milliseconds (got ${idleMs})`);
  }

  /**
   * Runs a document in a parser. `onPart` receives, in order, the parts a module task with
   * `parts` sends ahead of its result; none arrive after the result or the error.
   */
  run(task: TaskInput, transfer: ArrayBuffer[] = [], onPart?: (value: unknown) => void): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, transfer, onPart, resolve, reject });
      this.pump();
    });
  }

  /**
   * Live parsers (processes or threads): at most the pool's size; a parser ended by a limit is
   * replaced on demand, and one idle for the pool's idle time ends (0 in an idle service).
   */
  get threads(): number {
    return this.slots.length;
  }

  /** Ends every parser; queued and running documents are refused. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('the parser pool was closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => this.retire(s, new Error('the parser pool was closed'))),
    );
  }

  private pump() {
    this.drain();
    for (const slot of this.slots) if (slot.ready && !slot.job && !slot.idle) this.idleTimer(slot);
  }

  /** A free parser ends after `idleMs` without a document; the next document starts one. */
  private idleTimer(slot: Slot) {
    slot.idle = setTimeout(() => {
      slot.idle = undefined;
      if (slot.job) return;
      const i = this.slots.indexOf(slot);
      if (i === -1) return;
      this.slots.splice(i, 1);
      void this.retire(slot, new Error('the parser was idle'));
    }, this.idleMs);
    slot.idle.unref();
  }

  private drain() {
    while (this.queue.length) {
      if (this.slots.length < this.size && this.slots.every((s) => !s.ready || s.job)) this.spawn();
      const slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) return;
      const job = this.queue.shift()!;
      const id = this.nextId++;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      // Loading a task module or pdf.js is not the document's time: its clock restarts once loaded.
      const timer = job.task.kind === 'html' ? this.clock(slot) : this.wallClock(slot, MODULE_LOAD_MS);
      slot.job = { ...job, id, timer };
      slot.worker.ref();
      slot.worker.postMessage({ ...job.task, id }, job.transfer);
    }
  }

  /** Wall-clock bound of one document: the limits' `wallMs`, or twice its CPU time. */
  private get wallMs(): number {
    return this.limits.wallMs ?? this.limits.timeMs * 2;
  }

  private tooLong(): ParseLimitError {
    return new ParseLimitError('time', `parsing took longer than ${this.limits.timeMs / 1000} s`);
  }

  private wallClock(slot: Slot, ms: number): NodeJS.Timeout {
    return setTimeout(() => void this.fail(slot, this.tooLong()), ms);
  }

  /**
   * The document's clock: its parser's CPU time checked a few times a second against
   * `timeMs`, and wall-clock time against `wallMs`. Without a readable CPU time, wall-clock
   * time against `timeMs`. `cpuStart` is the parser's CPU time when the document started, as
   * the parser itself reported it (read here when it did not).
   */
  private clock(
    slot: Slot,
    cpuStart = slot.tid === undefined ? undefined : slot.worker.cpuMs(slot.tid),
  ): NodeJS.Timeout {
    if (cpuStart === undefined) return this.wallClock(slot, this.limits.timeMs);
    const started = performance.now();
    const every = Math.min(250, Math.max(20, this.limits.timeMs / 10));
    const timer = setInterval(() => {
      const cpu = slot.worker.cpuMs(slot.tid!);
      const over =
        performance.now() - started > this.wallMs ||
        (cpu !== undefined && cpu - cpuStart > this.limits.timeMs);
      if (over) void this.fail(slot, this.tooLong());
    }, every);
    timer.unref();
    return timer;
  }

  private spawn(): Slot {
    // Started for a queued document: held (the event loop waits for it) until it has none.
    const worker = this.isolation === 'process' ? parserProcess(this.limits) : parserThread(this.limits);
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: ParseReply | WorkerNotice) => {
      if ('ready' in reply) {
        slot.ready = true;
        slot.tid = reply.tid;
        this.pump();
        if (!slot.job) worker.unref();
        return;
      }
      if ('started' in reply) {
        if (slot.job?.id === reply.started) {
          clearTimeout(slot.job.timer);
          slot.job.timer = this.clock(slot, reply.cpuMs);
        }
        return;
      }
      if ('part' in reply) {
        if (slot.job?.id === reply.part) slot.job.onPart?.(reply.value);
        return;
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      worker.unref();
      if (reply.ok) job.resolve(reply.value);
      else
        job.reject(
          reply.limit
            ? new ParseLimitError(reply.limit as ParseLimit, reply.message)
            : new Error(reply.message),
        );
      this.pump();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const limit =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY' || err.code === 'ERR_PARSER_OUT_OF_MEMORY'
          ? new ParseLimitError('memory', `parsing needed more than ${this.limits.memoryMb} MB of memory`)
          : err;
      void this.fail(slot, limit);
    });
    worker.on('exit', () => void this.fail(slot, new Error('the parser exited')));
    this.slots.push(slot);
    return slot;
  }

  /** The running document failed or the parser died: refuse the document, replace the parser. */
  private async fail(slot: Slot, err: Error) {
    const i = this.slots.indexOf(slot);
    if (i === -1) return;
    this.slots.splice(i, 1);
    await this.retire(slot, err);
    this.pump();
  }

  private async retire(slot: Slot, err: Error) {
    clearTimeout(slot.idle);
    slot.idle = undefined;
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.reject(err);
    }
    slot.worker.removeAllListeners('exit');
    await slot.worker.terminate().catch(() => {});
  }
}

/** A worker thread under `resourceLimits`. */
function parserThread(limits: ParseLimits): Parser {
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
function parserProcess(limits: ParseLimits): Parser {
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
