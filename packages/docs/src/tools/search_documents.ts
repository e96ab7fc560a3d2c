import { SearchDocumentsInput, SearchDocumentsOutput } from '@lore/schema/docs';
import { excerpt, queryTerms } from '@lore/search';
import { both, corpusSql } from '../domain/corpus.js';
import { compileFilter } from '../domain/filter.js';
import { decodePageToken, encodePageToken } from '../domain/paging.js';
import { tool } from '../ports.js';

export const searchDocuments = tool({
  name: 'search_documents',
  title: 'Search the documentation',
  description:
    'Search the documentation corpus and get matching chunks of documents: exact code samples, API names, CLI flags, ' +
    'configuration keys, specific error messages. Each result has `parent`, the document name to pass to get_documents ' +
    'for the whole page. Results are paginated: pass `nextPageToken` back as `pageToken` with the same query and filter. ' +
    'Optional `filter` (AIP-160): data_source / uri with = or !=, update_time with =, !=, <, <=, >, >= (RFC 3339), ' +
    'combined with AND, OR, NOT and parentheses, e.g. data_source = "hono.dev" OR data_source = "lore". ' +
    'Optional `corpus`: only that corpus (the data_source given at ingest). Chunks are found by their words and, with ' +
    'an embedding model, by meaning (a question worded otherwise); `foundBy` says which signal found each.',
  input: SearchDocumentsInput,
  output: SearchDocumentsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  rateClass: 'read',
  async handler(input, { ports, signal }) {
    await ports.ownDocs();
    ports.calls.record('search_documents');
    const filter = both(compileFilter(input.filter), input.corpus ? corpusSql(input.corpus) : null);
    const offset = decodePageToken(input.pageToken, input.query, pageKey(input));
    const page = await ports.search.search({
      query: input.query,
      filter,
      offset,
      limit: input.pageSize,
      signal,
    });
    const results = page.hits.map((h) => ({
      parent: h.document,
      id: `chunk_${h.ordinal}`,
      content: h.text,
      relevanceScore: Number(h.score.toPrecision(6)),
      document: { name: h.document, title: h.title, uri: h.uri },
      foundBy: h.foundBy,
    }));
    const nextPageToken = page.more
      ? encodePageToken(offset + results.length, input.query, pageKey(input))
      : '';
    const terms = queryTerms(input.query, 16);
    const lines = results.map(
      (r, i) =>
        `${offset + i + 1}. ${r.document.title} — ${r.parent} (${r.id}, score ${r.relevanceScore}, found by ${r.foundBy.join(' + ')})\n   ${excerpt(r.content, terms, 240)}`,
    );
    const text = results.length
      ? `${results.length} result${results.length === 1 ? '' : 's'}${offset ? ` (from #${offset + 1})` : ''} for "${input.query}":\n` +
        `${lines.join('\n')}\n` +
        (nextPageToken ? `More results: call again with pageToken "${nextPageToken}".\n` : '') +
        'Fetch a whole document with get_documents({ names: [parent] }).'
      : offset
        ? 'No more results for this query.'
        : `No documents match "${input.query}"${input.filter ? ' with this filter' : ''}. Try other words, or a broader filter.`;
    return { text, data: { results, nextPageToken } };
  },
});

/** A page token holds to the query and everything that narrows it. */
function pageKey(input: { filter?: string | undefined; corpus?: string | undefined }): string | undefined {
  return input.corpus ? `${input.filter ?? ''}\u0000corpus=${input.corpus}` : input.filter;
}
