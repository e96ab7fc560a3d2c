import { availableParallelism, getPriority, setPriority } from 'node:os';
import { DEFAULT_PARSE_LIMITS, type ParseLimit, ParseLimitError, type ParseLimits } from './limits.js';
import type { ParseReply, ParseTask, WorkerNotice } from './parse-worker.js';
import { type Parser, parserProcess, parserThread } from './parsers.js';
import { threadCpuMs } from './thread-cpu.js';

export { threadCpuMs };

/** Time a parser may take to load a task module (tsx compiles it from sources) or pdf.js the first time. */
const MODULE_LOAD_MS = 60_000;

/**
 * CPU time one document gets at the parser's normal priority (the priority of the pool's own
 * process). Past it the parser drops to the lowest priority (nice 19) until the document ends, so
 * a long parse (a big PDF) takes what the machine's other work leaves; the next document starts
 * at normal priority again.
 */
export const NORMAL_PRIORITY_CPU_MS = 500;

/** Linux's and macOS's lowest scheduling priority (`nice 19`). */
const LOWEST_PRIORITY = 19;

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

/**
 * Where documents are parsed. `process` (the default): a child process of Node with its own
 * heap limit (`--max-old-space-size`), so a document that exhausts it ends that process and
 * nothing else. `thread`: a worker thread with `resourceLimits`, cheaper to start, but V8 can
 * end the whole process when a worker's heap runs out during one large allocation (a 700 MiB
 * string does it: BENCHMARKS.md, "Parser containment").
 */
export type ParserIsolation = 'process' | 'thread';

interface Slot {
  worker: Parser;
  /** The parser has loaded its modules (startup does not count against a document's time). */
  ready: boolean;
  /** The parser's Linux thread id (a process's: its pid), for reading its CPU time (undefined elsewhere). */
  tid?: number;
  /** The parser's priority when it started (its pool's), restored after a document that lowered it. */
  priority?: number;
  /** The running document has used up its CPU time at normal priority: the parser runs at the lowest. */
  lowered?: boolean;
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
 * A document runs at normal priority for its first `NORMAL_PRIORITY_CPU_MS` of CPU, then at the
 * lowest. The time limit counts the parser's own CPU time where Linux reports it, so on a busy
 * machine a long document that takes seconds of wall-clock time at the lowest priority is not
 * refused for waiting. A wall-clock bound (`wallMs`) ends a parser that makes no progress at all.
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
   * The document's clock: its parser's CPU time checked several times a second against
   * `timeMs`, and wall-clock time against `wallMs`; past `NORMAL_PRIORITY_CPU_MS` the parser is
   * lowered. Without a readable CPU time, wall-clock time stands in for it. `cpuStart` is the
   * parser's CPU time when the document started, as the parser itself reported it (read here
   * when it did not).
   */
  private clock(
    slot: Slot,
    cpuStart = slot.tid === undefined ? undefined : slot.worker.cpuMs(slot.tid),
  ): NodeJS.Timeout {
    const started = performance.now();
    const every = Math.min(100, Math.max(20, this.limits.timeMs / 10));
    const timer = setInterval(() => {
      const wall = performance.now() - started;
      const cpu = cpuStart === undefined ? undefined : slot.worker.cpuMs(slot.tid!);
      const used = cpuStart === undefined ? wall : cpu === undefined ? 0 : cpu - cpuStart;
      if (!slot.lowered && used >= NORMAL_PRIORITY_CPU_MS) this.lower(slot);
      const over =
        cpuStart === undefined ? wall > this.limits.timeMs : wall > this.wallMs || used > this.limits.timeMs;
      if (over) void this.fail(slot, this.tooLong());
    }, every);
    timer.unref();
    return timer;
  }

  /** What the parser's priority is set on: its parsing thread on Linux, else its process. */
  private static target(slot: Slot): number | undefined {
    return slot.tid ?? slot.worker.pid;
  }

  /** The running document has had its CPU time at normal priority: the rest runs at the lowest. */
  private lower(slot: Slot) {
    const target = ParserPool.target(slot);
    if (target === undefined) return;
    slot.lowered = true;
    try {
      setPriority(target, LOWEST_PRIORITY);
    } catch {
      // The parser has just ended, or the system refuses: the document goes on as it was.
    }
  }

  /**
   * After a document that lowered it, the parser goes back to its normal priority; where raising
   * a priority is not permitted (an unprivileged process on Linux), the parser is ended instead
   * and the next document starts a new one. Returns false when the parser was ended.
   */
  private restore(slot: Slot): boolean {
    if (!slot.lowered) return true;
    slot.lowered = false;
    const target = ParserPool.target(slot);
    try {
      if (target !== undefined && slot.priority !== undefined) {
        setPriority(target, slot.priority);
        return true;
      }
    } catch {
      // Not permitted: ended below.
    }
    const i = this.slots.indexOf(slot);
    if (i !== -1) this.slots.splice(i, 1);
    void this.retire(slot, new Error('the parser stayed at the lowest priority'));
    return false;
  }

  private spawn(): Slot {
    // Started for a queued document: held (the event loop waits for it) until it has none.
    const worker = this.isolation === 'process' ? parserProcess(this.limits) : parserThread(this.limits);
    const slot: Slot = { worker, ready: false };
    worker.on('message', (reply: ParseReply | WorkerNotice) => {
      if ('ready' in reply) {
        slot.ready = true;
        slot.tid = reply.tid;
        slot.priority = priorityOf(ParserPool.target(slot));
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
      if (this.restore(slot)) worker.unref();
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

/** A thread's (or process's) scheduling priority; undefined where it cannot be read. */
function priorityOf(target: number | undefined): number | undefined {
  if (target === undefined) return undefined;
  try {
    return getPriority(target);
  } catch {
    return undefined;
  }
}
