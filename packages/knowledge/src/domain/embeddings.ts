import type { LoreConfig } from '@lore/kit';

/** Turns texts into vectors; the port the knowledge base uses for semantic search. */
export interface Embedder {
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

const BATCH = 64;
const TIMEOUT_MS = 30_000;

interface EmbeddingsResponse {
  data?: Array<{ embedding?: unknown; index?: number }>;
}

/**
 * An OpenAI-compatible `/embeddings` client (OpenAI, Ollama, vLLM, llama.cpp server, TEI…),
 * or null when `LORE_EMBEDDINGS_BASE_URL` is not set. Plain fetch: the protocol is one POST.
 */
export function createEmbedder(config: LoreConfig, fetchImpl: typeof fetch = fetch): Embedder | null {
  const base = config.LORE_EMBEDDINGS_BASE_URL;
  if (!base) return null;
  const url = `${base.replace(/\/+$/, '')}/embeddings`;
  const model = config.LORE_EMBEDDINGS_MODEL;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.LORE_EMBEDDINGS_API_KEY) headers.authorization = `Bearer ${config.LORE_EMBEDDINGS_API_KEY}`;

  async function batch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const res = await fetchImpl(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model, input }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}`);
    const body = (await res.json()) as EmbeddingsResponse;
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
    model,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH)
        out.push(...(await batch(texts.slice(i, i + BATCH), signal)));
      return out;
    },
  };
}
