import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadEntry } from '@lore/embed/thread';
import { DEFAULT_PARSE_LIMITS, type ParseLimit, ParseLimitError, type ParseLimits } from './limits.js';
import type { ParseReply, ParseTask, WorkerNotice } from './parse-worker.js';
import { threadCpuMs } from './thread-cpu.js';

export { threadCpuMs };

/**
 * The parser thread's entry: `parse-worker.ts` through tsx's loader from TypeScript sources
 * (tests, `tsx`), `parse-worker.js` beside this chunk from the built package.
 */
const workerSpec = () => threadEntry('parse-worker', import.meta.url);

/** Time a parser thread may take to load a task module (tsx compiles it from sources) or pdf.js the first time. */
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

interface Slot {
  worker: Worker;
  /** The thread has loaded its modules (startup does not count against a document's time). */
  ready: boolean;
  /** The thread's Linux thread id, for reading its own CPU time (undefined elsewhere). */
  tid?: number;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  /** Ends the thread once it has had no document for the pool's idle time. */
  idle?: NodeJS.Timeout;
}

/**
 * How long a parser thread with nothing to parse stays alive. A thread is a whole V8 isolate
 * (about 10 MiB resident once it has parsed a few documents); most services parse in bursts
 * (an ingest) and then not at all, so an idle process keeps none and the next document starts
 * one again (tens of milliseconds).
 */
export const PARSER_IDLE_MS = 30_000;

/**
 * A few long-lived parser threads. Each document runs in one of them with a time limit (the
 * thread is terminated and replaced when it runs over) and a heap limit (V8 ends the thread
 * when it is exceeded), so a compression bomb or a pathologically nested page costs its own
 * caller a 400 and every other call — and `/healthz` — nothing.
 *
 * The time limit counts the parser thread's own CPU time where Linux reports it: the thread
 * runs at the lowest priority, so on a busy machine a document that needs 200 ms of CPU may
 * take seconds of wall-clock time without being hostile. A wall-clock bound (`wallMs`) ends
 * a thread that makes no progress at all.
 */
export class ParserPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(
    readonly limits: ParseLimits = DEFAULT_PARSE_LIMITS,
    private readonly size = Math.max(1, Math.min(2, availableParallelism() - 1)),
    /** Milliseconds a thread with no document stays alive (`PARSER_IDLE_MS`). */
    private readonly idleMs = PARSER_IDLE_MS,
  ) {
    if (!(idleMs > 0))
      throw new RangeError(`ParserPool: idleMs must be a positive number of milliseconds (got ${idleMs})`);
  }

  /**
   * Runs a document in a thread. `onPart` receives, in order, the parts a module task with
   * `parts` sends ahead of its result; none arrive after the result or the error.
   */
  run(task: TaskInput, transfer: ArrayBuffer[] = [], onPart?: (value: unknown) => void): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, transfer, onPart, resolve, reject });
      this.pump();
    });
  }

  /**
   * Live parser threads: at most the pool's size; a thread ended by a limit is replaced on
   * demand, and a thread idle for the pool's idle time ends (0 in an idle process).
   */
  get threads(): number {
    return this.slots.length;
  }

  /** Ends every thread; queued and running documents are refused. */
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

  /** A free thread ends after `idleMs` without a document; the next document starts one. */
  private idleTimer(slot: Slot) {
    slot.idle = setTimeout(() => {
      slot.idle = undefined;
      if (slot.job) return;
      const i = this.slots.indexOf(slot);
      if (i === -1) return;
      this.slots.splice(i, 1);
      void this.retire(slot, new Error('the parser thread was idle'));
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
   * The document's clock: its thread's CPU time checked a few times a second against
   * `timeMs`, and wall-clock time against `wallMs`. Without a readable CPU time, wall-clock
   * time against `timeMs`. `cpuStart` is the thread's CPU time when the document started, as
   * the thread itself reported it (read here when it did not).
   */
  private clock(
    slot: Slot,
    cpuStart = slot.tid === undefined ? undefined : threadCpuMs(slot.tid),
  ): NodeJS.Timeout {
    if (cpuStart === undefined) return this.wallClock(slot, this.limits.timeMs);
    const started = performance.now();
    const every = Math.min(250, Math.max(20, this.limits.timeMs / 10));
    const timer = setInterval(() => {
      const cpu = threadCpuMs(slot.tid!);
      const over =
        performance.now() - started > this.wallMs ||
        (cpu !== undefined && cpu - cpuStart > this.limits.timeMs);
      if (over) void this.fail(slot, this.tooLong());
    }, every);
    timer.unref();
    return timer;
  }

  private spawn(): Slot {
    const spec = workerSpec();
    const worker = new Worker(spec.entry, {
      eval: spec.eval,
      ...(spec.execArgv ? { execArgv: spec.execArgv } : {}),
      resourceLimits: {
        maxOldGenerationSizeMb: this.limits.memoryMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.round(this.limits.memoryMb / 8))),
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: ParseReply | WorkerNotice) => {
      if ('ready' in reply) {
        slot.ready = true;
        slot.tid = reply.tid;
        this.pump();
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
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ParseLimitError('memory', `parsing needed more than ${this.limits.memoryMb} MB of memory`)
          : err;
      void this.fail(slot, limit);
    });
    worker.on('exit', () => void this.fail(slot, new Error('the parser thread exited')));
    this.slots.push(slot);
    return slot;
  }

  /** The running document failed or the thread died: refuse the document, replace the thread. */
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
