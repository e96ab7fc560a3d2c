import { forbidden, invalid, plural } from '@lore/kit';
import { DocsIngestInput, DocsIngestOutput } from '@lore/schema/docs';
import { ingestInputs, summaryLine } from '../domain/ingest.js';
import { tool } from '../ports.js';

export const docsIngest = tool({
  name: 'docs_ingest',
  title: 'Ingest a documentation corpus',
  description:
    'Operators only (LORE_DOCS_OPERATORS): ingest folders or files on the server, or crawl http(s) URLs (politely, one ' +
    'host, robots.txt obeyed), as one corpus. Re-ingesting a corpus adds, updates and removes documents to match. ' +
    'Reports progress (documents written of those found) to clients that ask for it.',
  input: DocsIngestInput,
  output: DocsIngestOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  rateClass: 'write',
  async handler(input, { ports, agent, progress }) {
    if (!ports.operators.has(agent.handle))
      throw forbidden(
        `Only this server's operators may ingest documentation; @${agent.handle} is not one (LORE_DOCS_OPERATORS).`,
      );
    let summary: Awaited<ReturnType<typeof ingestInputs>>;
    try {
      summary = await ingestInputs(ports.ingest, input.inputs, {
        ...(input.source ? { source: input.source } : {}),
        crawl: {
          allowPrivate: ports.crawlAllowPrivate,
          ...(input.maxPages ? { maxPages: input.maxPages } : {}),
        },
        onFetch: (url, fetched, queued) =>
          void progress(0, undefined, `fetched ${fetched} of ${queued}: ${url}`),
        onProgress: (done, total) => void progress(done, total, `${done} of ${plural(total, 'document')}`),
      });
    } catch (err) {
      const message = (err as Error).message;
      if (/ENOENT|no such file|nothing to ingest|must be an http/i.test(message))
        throw invalid(
          'inputs',
          'paths that exist or http(s) URLs',
          `Nothing could be read from the inputs: ${message}`,
        );
      // The crawl guard's refusal is about the input the operator gave, not a fault of the server.
      if (/private or loopback address/.test(message))
        throw invalid('inputs', 'public http(s) URLs', `Not crawled: ${message}`);
      throw err;
    }
    const { source, added, updated, removed, unchanged, chunks, failed, skipped, seconds } = summary;
    return {
      text: summaryLine(summary),
      data: { source, added, updated, removed, unchanged, chunks, failed, skipped, seconds },
    };
  },
});
