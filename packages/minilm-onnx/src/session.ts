import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

/** Runs the embedding graph: token ids and mask in ([batch, sequence]), pooled vectors out. */
export interface GraphRunner {
  run(ids: BigInt64Array, mask: BigInt64Array, dims: [number, number]): Promise<Float32Array>;
  close(): Promise<void>;
}

export interface RunnerOptions {
  threads: number;
  /** Let ONNX Runtime keep prepacked copies of the weights (see `sessionOptions`). */
  prepack: boolean;
}

/**
 * One thread by default, and the arena kept (without it glibc kept twice the memory after a few
 * batches, and a passage took twice the CPU). Prepacked copies of the weights only for int8: for
 * fp32 they held 22–27 MB more for a query 1–2 ms of CPU faster and passages no faster; for int8
 * the packed int8 weights replace the plain ones at no cost in memory and a passage takes a fifth
 * less CPU (12.4 against 15.5 ms for 113 tokens; BENCHMARKS.md, "Meaning: memory").
 */
function sessionOptions(opts: RunnerOptions): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: { session: { disable_prepacking: opts.prepack ? '0' : '1' } },
  };
}

/**
 * On the calling thread. onnxruntime-node's `run` computes synchronously, so the event loop is
 * blocked for the whole forward pass (about 40 ms of CPU per 200-token text): for scripts and
 * benchmarks, not for a service.
 */
export async function inlineRunner(modelPath: string, opts: RunnerOptions): Promise<GraphRunner> {
  const session = await ort.InferenceSession.create(modelPath, sessionOptions(opts));
  return {
    async run(ids, mask, dims) {
      const out = await session.run({
        input_ids: new ort.Tensor('int64', ids, dims),
        attention_mask: new ort.Tensor('int64', mask, dims),
      });
      return out.embeddings!.data as Float32Array;
    },
    close: () => session.release(),
  };
}

// Plain JavaScript, so that it runs the same from `src/` (TypeScript, in development and tests)
// and from `dist/`; no require or import, so that it runs whether the process evaluates code as
// CommonJS or as a module (--input-type=module): it only creates the session and runs it.
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const ort = process.getBuiltinModule('node:module').createRequire(workerData.ortPath)(workerData.ortPath);
const ready = ort.InferenceSession.create(workerData.modelPath, workerData.options);
ready.then(() => parentPort.postMessage({ ready: true }), (e) => parentPort.postMessage({ error: String((e && e.stack) || e) }));
parentPort.on('message', async (m) => {
  const session = await ready;
  if (m.close) {
    await session.release();
    parentPort.postMessage({ closed: true });
    return;
  }
  try {
    const out = await session.run({
      input_ids: new ort.Tensor('int64', m.ids, m.dims),
      attention_mask: new ort.Tensor('int64', m.mask, m.dims),
    });
    const data = out.embeddings.data;
    parentPort.postMessage({ id: m.id, data }, [data.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.stack) || e) });
  }
});
`;

type Pending = { resolve: (v: Float32Array) => void; reject: (e: Error) => void };

/**
 * In a worker thread of its own, so the event loop stays free while a batch runs. The worker
 * holds the process open only while a batch is in flight.
 */
export async function workerRunner(modelPath: string, opts: RunnerOptions): Promise<GraphRunner> {
  const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ortPath, modelPath, options: sessionOptions(opts) },
  });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let failure: Error | null = null;
  let onClosed: (() => void) | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    worker.once('message', (m: { ready?: boolean; error?: string }) =>
      m.ready ? resolve() : reject(new Error(`ONNX Runtime session failed: ${m.error}`)),
    );
    worker.once('error', reject);
  });
  worker.on('message', (m: { id?: number; data?: Float32Array; error?: string; closed?: boolean }) => {
    if (m.closed) {
      onClosed?.();
      return;
    }
    const p = pending.get(m.id!);
    if (!p) return;
    pending.delete(m.id!);
    if (pending.size === 0) worker.unref();
    if (m.error) p.reject(new Error(m.error));
    else p.resolve(m.data!);
  });
  worker.on('error', (e) => fail(e));
  worker.on('exit', (code) => fail(new Error(`the embedding worker exited (code ${code})`)));
  worker.unref();
  return {
    run(ids, mask, dims) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      worker.ref();
      return new Promise<Float32Array>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, ids, mask, dims }, [ids.buffer as ArrayBuffer, mask.buffer as ArrayBuffer]);
      });
    },
    async close() {
      if (!failure) {
        worker.ref();
        await new Promise<void>((resolve) => {
          onClosed = resolve;
          worker.postMessage({ close: true });
        });
      }
      await worker.terminate();
    },
  };
}
