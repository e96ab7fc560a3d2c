import type { EmbeddingsConfig } from './config.js';
import { createHttpEmbedder } from './http.js';
import { LocalEmbedder } from './local.js';
import type { Embedder, EmbedLog } from './port.js';

export type EmbeddingsChoice = 'local' | 'off' | { baseUrl: string };

/**
 * Which embedder the settings ask for: `LORE_EMBEDDINGS` when set; otherwise the endpoint of
 * `LORE_EMBEDDINGS_BASE_URL` when that is set (as before `LORE_EMBEDDINGS` existed), else local.
 */
export function embeddingsChoice(config: EmbeddingsConfig): EmbeddingsChoice {
  const set = config.LORE_EMBEDDINGS;
  if (set === 'local' || set === 'off') return set;
  if (set) return { baseUrl: set };
  return config.LORE_EMBEDDINGS_BASE_URL ? { baseUrl: config.LORE_EMBEDDINGS_BASE_URL } : 'local';
}

/** The embedder the settings ask for, or null for `LORE_EMBEDDINGS=off` (lexical search only). */
export function embedderFromConfig(
  config: EmbeddingsConfig,
  opts: { log?: EmbedLog; fetch?: typeof fetch } = {},
): Embedder | null {
  const choice = embeddingsChoice(config);
  if (choice === 'off') return null;
  if (choice === 'local')
    return new LocalEmbedder({
      idleMs: config.LORE_EMBEDDINGS_IDLE_MS,
      ...(opts.log ? { log: opts.log } : {}),
    });
  return createHttpEmbedder({
    baseUrl: choice.baseUrl,
    model: config.LORE_EMBEDDINGS_MODEL,
    apiKey: config.LORE_EMBEDDINGS_API_KEY,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}
