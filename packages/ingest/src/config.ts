import { z } from 'zod';

/**
 * The embeddings API a service's search may use (lexical only without one), for the services
 * that embed (docs, knowledge) to spread into their config schemas.
 */
export const EmbeddingsSettings = {
  LORE_EMBEDDINGS_BASE_URL: z.url().optional(),
  LORE_EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  LORE_EMBEDDINGS_API_KEY: z.string().optional(),
};
