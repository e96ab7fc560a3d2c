import { defineEvent } from '@lore/schema';
import { z } from 'zod';

/** A corpus (data source) was ingested and something in it changed. */
export const DocsCorpusIngested = defineEvent(
  'lore.docs.corpus.ingested',
  z.object({
    source: z.string(),
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    /** Documents of the source after the ingest. */
    documents: z.number().int(),
    /** Chunks written by this ingest. */
    chunks: z.number().int(),
  }),
);
