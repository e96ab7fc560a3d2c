export type { KnowledgeCliIo } from './cli.js';
export { KNOWLEDGE_CLI_USAGE, runKnowledgeCli } from './cli.js';
export {
  type KnowledgeConfig,
  KnowledgeConfigSchema,
  KnowledgeSettings,
  knowledgeSettings,
} from './config.js';
export { articleFromMarkdown } from './domain/article-files.js';
export { slugify } from './domain/article-text.js';
export { ArticleRepository, LORE_AUTHOR } from './domain/articles.js';
export { extractDocument, formatFromName, MAX_TEXT_CHARS } from './domain/ingest.js';
export type { AddedSource, FoundPassage, SearchOutcome } from './domain/knowledge-base.js';
export { agentToken, KnowledgeBase } from './domain/knowledge-base.js';
export { isWithin, MAX_FILE_BYTES, parseRoots, readAllowedFile } from './domain/paths.js';
export {
  BM25_FLOOR_PER_TERM,
  type Candidate,
  type Judgement,
  judgeCandidates,
  MEANING_SCALES,
  type MeaningScale,
  MIN_COVERAGE,
  MIN_SPECIFIC_TERMS,
  requiredTerms,
  scorePassage,
} from './domain/relevance.js';
export { analyzeQuery, MAX_QUERY_TERMS, stem } from './domain/search-terms.js';
export { seedArticles, shippedArticlesFolder } from './domain/seed.js';
export type { KnowledgePorts } from './ports.js';
export type { KnowledgeServiceOptions } from './service.js';
export { createKnowledgeService, KNOWLEDGE_VERSION, knowledgeTools } from './service.js';
