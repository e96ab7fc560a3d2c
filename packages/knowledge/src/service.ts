import { embedderFromConfig } from '@lore/embed';
import { useParseTimeLimit } from '@lore/ingest';
import {
  agentKeysOverBus,
  appToolMeta,
  createService,
  type LoreService,
  type ServiceDeps,
  sharedEmbedder,
  TextVectors,
} from '@lore/kit';
import { migrationsFolder, openServiceStore, rebuildInBackground } from '@lore/kit/db';
import { UsersAgentKeys } from '@lore/schema/users';
import { KNOWLEDGE_APP_URI, knowledgeApp } from './apps/knowledge.js';
import { knowledgeSettings } from './config.js';
import { ArticleRepository } from './domain/articles.js';
import { KnowledgeBase } from './domain/knowledge-base.js';
import { parseRoots } from './domain/paths.js';
import { seedArticles, shippedArticlesFolder } from './domain/seed.js';
import { SourceSharing } from './domain/sharing.js';
import { retrieveHandler } from './handlers/retrieve.js';
import { sourceFactsHandler } from './handlers/source-facts.js';
import { statsHandler } from './handlers/stats.js';
import type { KnowledgePorts } from './ports.js';
import * as tables from './tables.js';
import { articleGet } from './tools/article_get.js';
import { articlePublish } from './tools/article_publish.js';
import { articleSearch } from './tools/article_search.js';
import { knowledgeAppUpload } from './tools/knowledgeAppUpload.js';
import { listKnowledgeSources } from './tools/listKnowledgeSources.js';
import { removeKnowledgeSource } from './tools/removeKnowledgeSource.js';
import { searchKnowledge } from './tools/searchKnowledge.js';
import { setKnowledgeSourceSharing } from './tools/setKnowledgeSourceSharing.js';
import { updateKnowledgeSources } from './tools/updateKnowledgeSources.js';

export const KNOWLEDGE_VERSION = '0.1.0';

export const knowledgeTools = [
  updateKnowledgeSources,
  // Hosts that render MCP Apps show the knowledge app with the list; the text result stays complete.
  { ...listKnowledgeSources, meta: appToolMeta(KNOWLEDGE_APP_URI) },
  setKnowledgeSourceSharing,
  removeKnowledgeSource,
  searchKnowledge,
  // The knowledge app's upload button (app-only).
  knowledgeAppUpload,
  articleSearch,
  articlePublish,
  articleGet,
];

export interface KnowledgeServiceOptions {
  /** Where Lore's own articles are read from (default: the package's articles/ folder). */
  articlesFolder?: string;
  /** The embeddings endpoint client's fetch (tests). */
  fetch?: typeof fetch;
}

/** The knowledge service: each agent's knowledge sources (RAG) and the community articles. */
export async function createKnowledgeService(
  deps: ServiceDeps,
  opts: KnowledgeServiceOptions = {},
): Promise<LoreService> {
  const settings = knowledgeSettings(deps.config);
  useParseTimeLimit(settings.LORE_INGEST_TIME_LIMIT_MS);
  const { db, outbox, log } = await openServiceStore(
    deps,
    'knowledge',
    tables,
    migrationsFolder(import.meta.url),
  );
  // One model thread per process, shared with the other services (a test's own fetch gets its own client).
  const embedder = opts.fetch
    ? embedderFromConfig(settings, { log, fetch: opts.fetch })
    : sharedEmbedder(settings, log);
  const knowledge = new KnowledgeBase(db, outbox, embedder, log);
  const articles = new ArticleRepository(db, outbox);
  // Articles are found by meaning with the knowledge base's embedder (none with LORE_EMBEDDINGS=off).
  if (embedder) articles.vectors = new TextVectors(db, 'article_vectors', embedder, log);
  const sharing = new SourceSharing(db, outbox, () => knowledge.sensitivity.version);
  const ports: KnowledgePorts = {
    knowledge,
    articles,
    sharing,
    roots: parseRoots(settings.LORE_KNOWLEDGE_ROOTS),
  };
  const service: LoreService = createService({
    name: 'knowledge',
    version: KNOWLEDGE_VERSION,
    title: 'Lore knowledge',
    instructions:
      'Your knowledge sources (updateKnowledgeSources, listKnowledgeSources, setKnowledgeSourceSharing, removeKnowledgeSource, searchKnowledge) ' +
      "are what your node answers peers' questions from; each is shared auto, manual or private. Community articles: article_search, article_get, article_publish.",
    tools: knowledgeTools,
    resources: [knowledgeApp()],
    ports,
    deps,
    agentKeys: agentKeysOverBus(UsersAgentKeys),
    db,
    outbox,
    // Search by words alone when the embedding model is off or unavailable: said, not a failure.
    details: async () => {
      const e = knowledge.embeddings();
      return { embeddings: e.embeddingModel ? `${e.embeddings} (${e.embeddingModel})` : e.embeddings };
    },
    handlers: [
      retrieveHandler(knowledge, sharing),
      sourceFactsHandler(sharing, knowledge.sensitivity, knowledge.subjects, knowledge.meaning),
      statsHandler(knowledge, articles, () => service.metrics.totalCalls()),
    ],
    async onStart() {
      await seedArticles(articles, opts.articlesFolder ?? shippedArticlesFolder(import.meta.url), log);
      await articles.refreshVectors();
      // Chunks written without a vector (or with another model's) get one in the background.
      knowledge.startVectors();
      // An index written with another stemmer is rewritten in the background: starting does not
      // wait, and searches find more as it goes (see reindexKnowledge).
      const rebuilt = rebuildInBackground(log, 'knowledge search index', (signal) =>
        knowledge.reindex({ signal }),
      );
      return async () => {
        await rebuilt();
        await articles.vectors?.close();
        await knowledge.close();
      };
    },
  });
  return service;
}
