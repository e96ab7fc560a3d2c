import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** What the model thread is started with. */
export interface ModelThreadData {
  /** The weights package to import (its default export names `weightsPath`). */
  modelModule: string;
  /** The weights' expected sha256; other weights are refused. */
  sha256: string;
  /**
   * The graph's precision (`@lore/minilm-onnx`'s `Precision`). int8 runs one text a forward pass:
   * it quantises its activations per pass, so texts batched together would change each other's
   * vectors.
   */
  precision: 'fp32' | 'int8';
  /** ONNX Runtime's intra-op threads. */
  threads: number;
}

export type ModelThreadRequest = { id: number; texts: string[] };
export type ModelThreadReply =
  | { ready: true; loadMs: number }
  | { failed: string }
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string };

const port = parentPort!;
const data = workerData as ModelThreadData;

/**
 * Checks the weights, then builds the ONNX Runtime session (`@lore/minilm-onnx`, run inline: this
 * thread is the one that computes). The ONNX graph is written from the weights on the first load
 * ever (a few seconds) and reused after. Both imports are dynamic, so a missing package or an
 * ONNX Runtime binary that cannot load is reported (`failed`) instead of killing the thread.
 */
async function load() {
  const started = performance.now();
  const manifest = ((await import(data.modelModule)) as { default: { weightsPath: string } }).default;
  // Streamed: the 45 MB of weights read whole stayed in the thread's resident memory after.
  const hash = createHash('sha256');
  for await (const part of createReadStream(manifest.weightsPath)) hash.update(part as Buffer);
  const digest = hash.digest('hex');
  if (digest !== data.sha256)
    throw new Error(`the weights in ${manifest.weightsPath} have sha256 ${digest}, expected ${data.sha256}`);
  const { createOnnxEmbedder } = await import('@lore/minilm-onnx');
  const embedder = await createOnnxEmbedder({
    inline: true,
    precision: data.precision,
    threads: data.threads,
  });
  // The session's first run allocates its buffers: do it now, so loading is over when ready is said.
  await embedder.embed(['ready']);
  return { embedder, loadMs: performance.now() - started };
}

try {
  const { embedder, loadMs } = await load();
  port.on('message', async ({ id, texts }: ModelThreadRequest) => {
    try {
      const vectors = await embedder.embed(texts);
      port.postMessage(
        { id, vectors } satisfies ModelThreadReply,
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (err) {
      port.postMessage({ id, error: (err as Error).message } satisfies ModelThreadReply);
    }
  });
  port.postMessage({ ready: true, loadMs } satisfies ModelThreadReply);
} catch (err) {
  port.postMessage({ failed: (err as Error).message } satisfies ModelThreadReply);
}
