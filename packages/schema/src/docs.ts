import { z } from 'zod';
import { FoundBy } from './common.js';
import { defineEvent } from './events.js';

// The docs service: a documentation corpus with grounded answers, chunk search and whole documents.

export const AnswerQueryInput = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, { error: 'a question of 1 to 1000 characters' })
      .max(1000, { error: 'a question of 1 to 1000 characters' })
      .describe('A conceptual question in natural language, e.g. "How does Hono match routes?"'),
    corpus: z
      .string()
      .trim()
      .min(1, { error: 'a corpus name of 1 to 100 characters' })
      .max(100, { error: 'a corpus name of 1 to 100 characters' })
      .optional()
      .describe(
        'Only this corpus (the data_source given at ingest, e.g. "mydocs"; "lore" is Lore\'s own documentation). Without it, answers come from the operator’s corpora once there are any, else from Lore’s own.',
      ),
  })
  .strict();

export const AnswerQueryOutput = z.object({
  answerText: z.string().describe('The answer; [n] markers cite the numbered references listed at its end.'),
  references: z
    .array(z.string())
    .describe('Names of the documents the answer used (pass them to get_documents).'),
  strategy: z
    .enum(['endpoint', 'sampling', 'extractive'])
    .describe(
      "How the answer was written: the configured model endpoint, the client's model (sampling), or extracted sentences.",
    ),
  model: z.string().optional(),
  foundBy: z
    .record(z.string(), FoundBy)
    .optional()
    .describe('For each reference, which signals found its passages: words, meaning or both.'),
});

export const SearchDocumentsInput = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, { error: 'between 1 and 500 characters' })
      .max(500, { error: 'between 1 and 500 characters' })
      .describe('What to look for: keywords, an API name, an error message, or a question.'),
    pageSize: z
      .number()
      .int({ error: 'a whole number' })
      .min(1, { error: 'between 1 and 20' })
      .max(20, { error: 'between 1 and 20' })
      .default(5)
      .describe('Results per page (default 5, at most 20).'),
    pageToken: z
      .string()
      .max(500)
      .optional()
      .describe('nextPageToken from the previous call with the same query and filter.'),
    filter: z
      .string()
      .max(500, { error: 'at most 500 characters' })
      .optional()
      .describe(
        'Optional AIP-160 filter on data_source, uri (=, !=) and update_time (=, !=, <, <=, >, >=, RFC 3339), combined with AND, OR, NOT and parentheses; OR binds tighter than AND. ' +
          'E.g. data_source = "hono.dev" AND update_time > "2025-01-01T00:00:00Z".',
      ),
    corpus: z
      .string()
      .trim()
      .min(1, { error: 'a corpus name of 1 to 100 characters' })
      .max(100, { error: 'a corpus name of 1 to 100 characters' })
      .optional()
      .describe(
        'Only this corpus (the data_source given at ingest, e.g. "mydocs"; "lore" is Lore\'s own documentation). Combined with `filter` when both are given.',
      ),
  })
  .strict();

export const DocsDocumentRef = z.object({ name: z.string(), title: z.string(), uri: z.string() });

export const SearchDocumentsOutput = z.object({
  results: z.array(
    z.object({
      parent: z
        .string()
        .describe('The document this chunk belongs to; pass it to get_documents for the whole document.'),
      id: z.string().describe('The chunk within its document (chunk_0, chunk_1, …).'),
      content: z.string().describe('The chunk text (Markdown).'),
      relevanceScore: z.number().describe('Higher is more relevant; comparable within one query only.'),
      document: DocsDocumentRef,
      foundBy: FoundBy,
    }),
  ),
  nextPageToken: z
    .string()
    .describe('Pass as pageToken for the next page; empty when there are no more results.'),
});

export const GetDocumentsInput = z
  .object({
    names: z
      .array(z.string().min(1).max(1000), { error: 'a list of document names' })
      .min(1, { error: 'between 1 and 20 document names' })
      .max(20, { error: 'between 1 and 20 document names' })
      .describe('Document names (the `parent` of search results, or `references` of answer_query), 1 to 20.'),
  })
  .strict();

export const DocsDocument = z.object({
  name: z.string(),
  uri: z.string(),
  title: z.string(),
  description: z.string(),
  content: z.string().describe('The whole document as Markdown.'),
  dataSource: z.string(),
  updateTime: z.string().describe('ISO 8601: when the content last changed.'),
});

export const GetDocumentsOutput = z.object({
  documents: z.array(DocsDocument).describe('The documents found, in the order asked (each name once).'),
  missing: z
    .array(z.object({ name: z.string(), error: z.string() }))
    .describe('Names that were not found, each with the reason; the others are still returned.'),
});

export const DocsCorporaInput = z.object({}).strict();
export const DocsCorpus = z.object({
  source: z.string().describe('The data source, as `corpus` and the `data_source` filter name it.'),
  documents: z.number().int(),
  chunks: z.number().int(),
  updateTime: z.string().describe('ISO 8601: when a document of it last changed.'),
});
export const DocsCorporaOutput = z.object({
  corpora: z.array(DocsCorpus),
  documents: z.number().int(),
  chunks: z.number().int(),
  operator: z.boolean().describe('Whether the caller may ingest (docs_ingest).'),
});

export const DocsIngestInput = z
  .object({
    inputs: z
      .array(
        z
          .string()
          .trim()
          .min(1, { error: 'a path or an http(s) URL' })
          .max(2000, { error: 'at most 2000 characters' }),
        { error: 'a list of paths or URLs' },
      )
      .min(1, { error: 'between 1 and 10 paths or URLs' })
      .max(10, { error: 'between 1 and 10 paths or URLs' })
      .describe('Folders or files on the server, or http(s) URLs to crawl (a start page or a sitemap).'),
    source: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
        error: 'letters, digits, dots, dashes and underscores (1–100)',
      })
      .optional()
      .describe('The data source; default the URL host or the folder name.'),
    maxPages: z
      .number({ error: 'a whole number from 1 to 5000' })
      .int({ error: 'a whole number from 1 to 5000' })
      .min(1, { error: 'a whole number from 1 to 5000' })
      .max(5000, { error: 'a whole number from 1 to 5000' })
      .optional()
      .describe('At most this many pages fetched from a site (default 500).'),
  })
  .strict();
export const DocsIngestOutput = z.object({
  source: z.string(),
  added: z.number().int(),
  updated: z.number().int(),
  removed: z.number().int(),
  unchanged: z.number().int(),
  chunks: z.number().int().describe('Chunks written by this ingest.'),
  failed: z.array(z.object({ origin: z.string(), reason: z.string() })),
  skipped: z.array(z.object({ url: z.string(), reason: z.string() })),
  seconds: z.number(),
});

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
