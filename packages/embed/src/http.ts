import pLimit from 'p-limit';
import type { RemoteEmbeddingsConfig } from './config.js';
import type { Embedder } from './port.js';

export interface HttpEmbedderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Inputs per request. Default 64. */
  batchSize?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The configured endpoint's embedder, or null when `LORE_EMBEDDINGS_BASE_URL` is unset. */
export function httpEmbedderFromConfig(
  config: RemoteEmbeddingsConfig,
  fetchImpl?: typeof fetch,
): Embedder | null {
  if (!config.LORE_EMBEDDINGS_BASE_URL) return null;
  return createHttpEmbedder({
    baseUrl: config.LORE_EMBEDDINGS_BASE_URL,
    model: config.LORE_EMBEDDINGS_MODEL,
    apiKey: config.LORE_EMBEDDINGS_API_KEY,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

/**
 * An OpenAI-compatible `/embeddings` client (OpenAI, Ollama, vLLM, llama.cpp server, TEI…).
 * Plain fetch: the protocol is one POST. Long inputs go in batches, a few requests at a time,
 * and the vectors come back in input order.
 */
export function createHttpEmbedder(opts: HttpEmbedderOptions): Embedder {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const fetchImpl = opts.fetch ?? fetch;

  async function request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await fetchImpl(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // Never another provider's key from the environment: only the one configured for this endpoint.
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: opts.model, input, encoding_format: 'float' }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!res.ok)
      throw new Error(`embeddings endpoint answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
    const body = (await res.json()) as { data?: Array<{ embedding?: unknown; index?: number }> };
    const data = body.data ?? [];
    if (data.length !== input.length)
      throw new Error(`embeddings endpoint returned ${data.length} vectors for ${input.length} inputs`);
    const out: Float32Array[] = new Array(input.length);
    data.forEach((d, i) => {
      if (!Array.isArray(d.embedding) || d.embedding.some((x) => typeof x !== 'number'))
        throw new Error('embeddings endpoint returned a vector that is not a list of numbers');
      out[d.index ?? i] = Float32Array.from(d.embedding as number[]);
    });
    return out;
  }

  return {
    model: opts.model,
    async embed(texts, signal) {
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
      const slot = pLimit(concurrency);
      const results = await Promise.all(batches.map((batch) => slot(() => request(batch, signal))));
      return results.flat();
    },
  };
}
