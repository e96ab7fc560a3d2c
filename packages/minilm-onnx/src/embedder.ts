import type { Precision } from './graph.js';
import { DEFAULT_CACHE_DIR, ensureOnnxModel, MODEL_FILES } from './model.js';
import { inlineRunner, workerRunner } from './session.js';
import { WordPieceTokenizer } from './tokenizer.js';

export interface OnnxEmbedderOptions {
  /** `fp32` (default): vectors equal the reference's. `int8`: quantised dense layers. */
  precision?: Precision;
  /** ONNX Runtime's intra-op threads (default 1, so the embedder shares a 2-core machine). */
  threads?: number;
  /**
   * Texts per forward pass (default 8 for fp32, 1 for int8); texts of similar length are batched
   * together. Larger batches were no faster here and hold more memory (batches of 32 ~200-token
   * texts: +160 MB RSS). The int8 graph quantises its activations per pass, with one scale for the
   * whole batch: batched, a text's vector depends on the texts beside it, so int8 refuses more
   * than one.
   */
  batchSize?: number;
  /** Inputs are cut at this many tokens, [CLS] and [SEP] included (default 256). */
  maxTokens?: number;
  /**
   * Run ONNX Runtime on the calling thread instead of a worker thread of its own (default false).
   * Its forward pass is synchronous: inline, the event loop waits for every batch.
   */
  inline?: boolean;
  /** Where the generated ONNX files live (default: `.cache/` in this package). */
  cacheDir?: string;
}

export interface OnnxEmbedder {
  /** What the vectors are: `minilm-l6-v2` for fp32, `minilm-l6-v2+int8` for int8. */
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * all-MiniLM-L6-v2 on ONNX Runtime (CPU). The ONNX file is generated from the npm weights on first
 * use when the package's build has not already written it; nothing is downloaded.
 */
export async function createOnnxEmbedder(opts: OnnxEmbedderOptions = {}): Promise<OnnxEmbedder> {
  const precision = opts.precision ?? 'fp32';
  const threads = opts.threads ?? 1;
  const batchSize = opts.batchSize ?? (precision === 'int8' ? 1 : 8);
  if (precision === 'int8' && batchSize !== 1)
    throw new Error('int8: batchSize must be 1 (activations are quantised per forward pass)');
  const maxTokens = opts.maxTokens ?? MODEL_FILES.maxTokens;
  const tokenizer = WordPieceTokenizer.fromFile(MODEL_FILES.tokenizerPath);
  const path = await ensureOnnxModel(precision, opts.cacheDir ?? DEFAULT_CACHE_DIR);
  const runner = await (opts.inline ? inlineRunner : workerRunner)(path, {
    threads,
    prepack: precision === 'int8',
  });
  const dimensions = MODEL_FILES.dimensions;
  let closed = false;
  // One forward pass at a time: ONNX Runtime's own threads are the parallelism.
  let queue: Promise<unknown> = Promise.resolve();

  const runBatch = async (batch: number[][]): Promise<Float32Array[]> => {
    const length = Math.max(...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(batch.length * length);
    const mask = new BigInt64Array(batch.length * length);
    batch.forEach((row, b) => {
      for (let i = 0; i < row.length; i++) {
        ids[b * length + i] = BigInt(row[i]!);
        mask[b * length + i] = 1n;
      }
    });
    const data = await runner.run(ids, mask, [batch.length, length]);
    return batch.map((_, b) => data.slice(b * dimensions, (b + 1) * dimensions));
  };

  const embedNow = async (texts: string[]): Promise<Float32Array[]> => {
    const encoded = texts.map((t) => tokenizer.encode(t, maxTokens));
    // Shortest first, so each batch pads little.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const result = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      const indices = order.slice(start, start + batchSize);
      const vectors = await runBatch(indices.map((i) => encoded[i]!));
      indices.forEach((i, k) => {
        result[i] = vectors[k]!;
      });
    }
    return result;
  };

  return {
    model: precision === 'fp32' ? MODEL_FILES.id : `${MODEL_FILES.id}+${precision}`,
    dimensions,
    embed(texts) {
      if (closed) return Promise.reject(new Error('the embedder is closed'));
      if (texts.length === 0) return Promise.resolve([]);
      const run = queue.then(() => embedNow(texts));
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await runner.close();
    },
  };
}
