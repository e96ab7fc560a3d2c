import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useParseTimeLimit } from '@lore/ingest';
import {
  agentKeysOverBus,
  createService,
  type LoreService,
  type ServiceDeps,
  sharedEmbedder,
  sharedRateLimitStore,
} from '@lore/kit';
import { migrationsFolder, openServiceStore, rebuildInBackground } from '@lore/kit/db';
import { UsersAgentKeys } from '@lore/schema/users';
import { createTextGenerator } from '@lore/textgen';
import { docsSettings } from './config.js';
import { ingestDocuments } from './domain/ingest.js';
import { loreDocumentation } from './domain/own-docs.js';
import { AnswerQuota } from './domain/quota.js';
import { DocsSearch } from './domain/search.js';
import { collectFiles } from './domain/sources.js';
import { DocsStore } from './domain/store.js';
import { ChunkVectors } from './domain/vectors.js';
import { rpcHandlers } from './handlers/rpc.js';
import { CallCounter, type DocsPorts } from './ports.js';
import * as tables from './tables.js';
import { answerQuery } from './tools/answer_query.js';
import { docsCorpora } from './tools/docs_corpora.js';
import { docsIngest } from './tools/docs_ingest.js';
import { getDocuments } from './tools/get_documents.js';
import { searchDocuments } from './tools/search_documents.js';

export const DOCS_VERSION = '0.1.0';

export const docsTools = [answerQuery, searchDocuments, getDocuments, docsCorpora, docsIngest];

/** The data source Lore's own documentation is ingested as, and where its documents live. */
export const OWN_DOCS_SOURCE = 'lore';
export const OWN_DOCS_BASE_URI = 'https://lore.local/';

export interface DocsServiceOptions {
  /** Lore's own documentation (README and package READMEs), ingested on start as the corpus `lore`. */
  ownDocs?: { root: string; files: string[] };
}

/**
 * Who may ingest: the handles in LORE_DOCS_OPERATORS, or, with none set, the node's owner (the
 * agent the aggregator creates on first start, so that a fresh install has an operator): the
 * handle in `owner.handle` of the data directory when this process shares it, else `owner`.
 */
export function docsOperators(config: {
  LORE_DOCS_OPERATORS?: string | undefined;
  LORE_DATA_DIR: string;
}): Pick<ReadonlySet<string>, 'has'> {
  const listed = new Set(
    (config.LORE_DOCS_OPERATORS ?? '')
      .split(',')
      .map((h) => h.trim().replace(/^@/, ''))
      .filter(Boolean),
  );
  if (listed.size) return listed;
  const file = join(config.LORE_DATA_DIR, 'owner.handle');
  return {
    // Read at each check: the aggregator writes the file after the services have started.
    has(handle: string) {
      let owner = '';
      try {
        owner = readFileSync(file, 'utf8').trim();
      } catch {
        // No owner file here (a service of its own): the owner's default handle.
      }
      return handle === (owner || 'owner');
    },
  };
}

/** The docs service: a documentation corpus with grounded answers, chunk search and whole documents. */
export async function createDocsService(
  deps: ServiceDeps,
  options: DocsServiceOptions = {},
): Promise<LoreService> {
  const { db, outbox, log } = await openServiceStore(deps, 'docs', tables, migrationsFolder(import.meta.url));
  const config = docsSettings(deps.config);
  useParseTimeLimit(config.LORE_INGEST_TIME_LIMIT_MS);
  const store = new DocsStore(db);
  const embedder = sharedEmbedder(config, log);
  const textgen =
    deps.textgen ??
    createTextGenerator({
      ...(config.LORE_LLM_BASE_URL ? { baseUrl: config.LORE_LLM_BASE_URL } : {}),
      model: config.LORE_LLM_MODEL,
      ...(config.LORE_LLM_API_KEY ? { apiKey: config.LORE_LLM_API_KEY } : {}),
    });
  const calls = new CallCounter();
  const search = new DocsSearch(store, embedder, log);
  const vectors = new ChunkVectors(store, embedder, search, log);
  search.onSearch = () => vectors.kickIfChanged();
  const own =
    options.ownDocs ?? (config.LORE_DOCS_OWN_ROOT ? loreDocumentation(config.LORE_DOCS_OWN_ROOT) : undefined);
  /**
   * Lore's own documentation, ingested on the first call that reads the corpus rather than at
   * start: an idle node never holds it, and starting does not wait for it. Idempotent
   * (unchanged files are skipped by content hash); a failure is logged and the next start tries
   * again.
   */
  let ownDocsIngest: Promise<void> | undefined;
  const ingestOwnDocs = async (): Promise<void> => {
    if (!own || !config.LORE_INGEST_OWN_DOCS) return;
    try {
      await ingestDocuments(
        { store, outbox, vectors, log },
        collectFiles(own.root, own.files, OWN_DOCS_BASE_URI),
        { source: OWN_DOCS_SOURCE },
      );
    } catch (err) {
      log.warn({ err: (err as Error).message }, "could not ingest Lore's own documentation");
    }
  };
  const ports: DocsPorts = {
    store,
    search,
    textgen,
    quota: new AnswerQuota(
      config.LORE_ANSWER_QUOTA_PER_MINUTE,
      config.LORE_ANSWER_QUOTA_PER_DAY,
      Date.now,
      sharedRateLimitStore(deps.bus),
    ),
    calls,
    ingest: { store, outbox, vectors, log },
    ownDocs: () => {
      ownDocsIngest ??= ingestOwnDocs();
      return ownDocsIngest;
    },
    operators: docsOperators({
      LORE_DOCS_OPERATORS: config.LORE_DOCS_OPERATORS,
      LORE_DATA_DIR: deps.config.LORE_DATA_DIR,
    }),
    crawlAllowPrivate: config.LORE_CRAWL_ALLOW_PRIVATE,
  };
  return createService({
    name: 'docs',
    version: DOCS_VERSION,
    title: 'Lore docs',
    instructions:
      'A documentation corpus. answer_query gives a cited conceptual answer (limited quota); search_documents finds ' +
      'passages (code, flags, error messages); get_documents returns whole documents by name.',
    tools: docsTools,
    ports,
    deps,
    agentKeys: agentKeysOverBus(UsersAgentKeys),
    db,
    outbox,
    handlers: rpcHandlers(store, calls),
    async onStart() {
      // An index written otherwise (an older row format, or emptied by a migration) is rewritten
      // in the background: starting does not wait, and searches find more as it goes. The rewrite
      // leaves a segment a batch; they are merged into one afterwards, in steps, as after a bulk
      // ingest.
      const stopReindex = rebuildInBackground(log, 'docs search index', async (signal) => {
        const chunks = await store.reindex({ signal });
        return { chunks, indexMergeSteps: chunks ? await store.mergeIndex({ signal }) : 0 };
      });
      // Chunks without a vector of the configured model (new, or of another model) get one.
      vectors.kick();
      // Stopping waits for an ingest of Lore's own documentation that a first call started.
      return async () => {
        await Promise.all([stopReindex(), ownDocsIngest]);
        await vectors.close();
      };
    },
  });
}
