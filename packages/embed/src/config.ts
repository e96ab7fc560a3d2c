import { z } from 'zod';

/**
 * The OpenAI-compatible endpoint's settings, as the docs service reads them (lexical search only
 * without `LORE_EMBEDDINGS_BASE_URL`).
 */
export const RemoteEmbeddingsSettings = {
  LORE_EMBEDDINGS_BASE_URL: z.url().optional(),
  LORE_EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  LORE_EMBEDDINGS_API_KEY: z.string().optional(),
};

/** `local`, `off`, or an OpenAI-compatible base URL (`…/v1`). */
const EmbeddingsChoice = z
  .string()
  .trim()
  .refine((v) => v === 'local' || v === 'off' || z.url().safeParse(v).success, {
    message: 'expected local, off or an http(s) URL of an OpenAI-compatible API',
  });

/**
 * Which embedder a service uses, for the services that embed by default (knowledge) to spread into
 * their config schemas: `LORE_EMBEDDINGS=local` (the default: all-MiniLM-L6-v2 from npm, in a
 * thread of its own), `off` (lexical search only) or an endpoint's base URL. A set
 * `LORE_EMBEDDINGS_BASE_URL` picks that endpoint as it always did, unless `LORE_EMBEDDINGS` says
 * otherwise.
 */
export const EmbeddingsSettings = {
  LORE_EMBEDDINGS: EmbeddingsChoice.optional(),
  ...RemoteEmbeddingsSettings,
  /** Milliseconds the local model stays loaded without a request (then its memory is given back). */
  LORE_EMBEDDINGS_IDLE_MS: z.coerce.number().int().positive().default(300_000),
};

export type RemoteEmbeddingsConfig = z.output<z.ZodObject<typeof RemoteEmbeddingsSettings>>;
export type EmbeddingsConfig = z.output<z.ZodObject<typeof EmbeddingsSettings>>;
