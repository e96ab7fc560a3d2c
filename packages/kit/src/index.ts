export type { ServiceResource } from './apps.js';
export { appHtml, appRuntime, appToolMeta, MCP_APP_MIME, MCP_APPS_EXTENSION } from './apps.js';
export { Authenticator, bearerToken, generateApiKey, hashApiKey, KEY_PREFIX } from './auth.js';
export type {
  DeliveryInfo,
  EventBus,
  EventHandler,
  RequestHandler,
  SubscribeOptions,
  Subscription,
} from './bus/index.js';
export {
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  createBus,
  MemoryBus,
  NatsBus,
  natsServers,
  subjectMatches,
} from './bus/index.js';
export type { NodeLocalBus, NodeRequestOptions } from './bus/local.js';
export { nodeLocalBus, nodeSubject } from './bus/local.js';
export { GroupCommit, limiter, settleInPool } from './concurrency.js';
export type { LoreConfig, ServiceName } from './config.js';
export { ConfigError, databaseFor, LoreConfigSchema, loadConfig, SERVICE_NAMES } from './config.js';
export type { Database, OpenDatabaseOptions, RowValue, Transaction } from './db/index.js';
export {
  inbox,
  insertRows,
  migrationsFolder,
  openDatabase,
  outbox,
  statementCacheStats,
} from './db/index.js';
export type { Embedder, EmbedderOptions } from './embeddings.js';
export { createEmbedder, embedderFromConfig } from './embeddings.js';
export {
  conflict,
  forbidden,
  fromZodError,
  invalid,
  notFound,
  rateLimited,
  ToolError,
  toToolError,
  unauthenticated,
  unavailable,
} from './errors.js';
export { formatCount, plural, preview, timeAgo } from './format.js';
export type { HttpAppOptions, RelayRequest } from './http-app.js';
export { inProcessFetch } from './in-process.js';
export type { Logger } from './logger.js';
export { createLogger } from './logger.js';
export type { AuthExtra, CallInfo, McpBackend } from './mcp.js';
export { createMcpFactory, InputRequiredSignal, SAMPLING_KEY, unknownTool } from './mcp.js';
export { mergedMetrics, ServiceMetrics } from './metrics.js';
export type {
  SensitiveFinding,
  SensitiveKind,
  UntrustedTextOptions,
  UntrustedTextVerdict,
} from './moderation/index.js';
export {
  checkUntrustedText,
  DEFAULT_MAX_LINKS,
  DEFAULT_MAX_REPEAT_RUN,
  describeFindings,
  foldLookalikes,
  longestRepeatRun,
  scanSensitive,
} from './moderation/index.js';
export type {
  AgentCard,
  HandleRecord,
  NetworkDirectory,
  SignedEnvelope,
  VerifyOutcome,
} from './network/index.js';
export {
  createDirectory,
  EnvelopeSigner,
  MemoryDirectory,
  NatsDirectory,
  verifyEnvelope,
} from './network/index.js';
export type { NodeIdentity } from './node.js';
export { loadNodeIdentity } from './node.js';
export type { Emit } from './outbox.js';
export { handleOnce, Outbox } from './outbox.js';
export {
  KvRateLimitStore,
  MemoryRateLimitStore,
  RATE_LIMIT_BUCKET,
  RATE_LIMITS,
  RateLimiter,
  type RateLimitStore,
  sharedRateLimitStore,
} from './rate-limit.js';
export type { HttpServerHandle } from './serve.js';
export { PortInUseError, parsePort, serveHttp, serveOverStdio, UsageError } from './serve.js';
export type { LoreService, ServiceDeps, ServiceOptions } from './service.js';
export {
  createHttpApp,
  createService,
  describeTool,
  ERROR_META_KEY,
  errorResult,
  jsonSchema,
  toolErrorOf,
} from './service.js';
export type { LegacySessionOptions } from './sessions.js';
export { LegacySessions } from './sessions.js';
export type { StandaloneOptions } from './standalone.js';
export { runStandalone } from './standalone.js';
export type { StatsResponderOptions } from './stats.js';
export { DailyCalls, statsResponder, utcDayStart } from './stats.js';
export type { ServiceStore } from './store.js';
export { openServiceStore } from './store.js';
export type { CallContext } from './telemetry.js';
export { callContext, nextTraceparent, startTelemetry, withSpan } from './telemetry.js';
export type {
  DocumentChunk,
  RankedRow,
  RankFields,
  RankQuery,
  RankTerm,
  SplitOptions,
  TermSplit,
  TermSplitOptions,
} from './text/index.js';
export {
  bm25Idf,
  convertHtml,
  cosineTopK,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_MIN_MATCHES,
  DEFAULT_PARSE_LIMITS,
  DEFAULT_RARE_SHARE,
  EXPANSION_WEIGHT,
  excerpt,
  expansionWords,
  extractPdfText,
  FIELD_BLEND,
  FIELD_WEIGHTS,
  float32FromBuffer,
  float32ToBuffer,
  ftsMatchQuery,
  ftsPhrase,
  htmlNestingDepth,
  htmlToMarkdown,
  identifierParts,
  isContentTerm,
  keywords,
  type ParseLimit,
  ParseLimitError,
  type ParseLimits,
  ParserPool,
  parserPool,
  pathWords,
  pdfToText,
  queryTerms,
  rankFields,
  rankQuery,
  rankSplitTerms,
  reciprocalRankFusion,
  rerankBlend,
  STOP_WORDS,
  SYNONYM_GROUPS,
  splitDocument,
  splitTermsByFrequency,
  stem,
  synonymsOf,
  tokenize,
  withIdentifierParts,
} from './text/index.js';
export type {
  Citation,
  GenerateRequest,
  GenerateResult,
  GenerationStrategy,
  JudgeRequest,
  JudgeVerdict,
  Passage,
  SamplingPort,
  TextGenerator,
  TextGeneratorConfig,
} from './textgen/index.js';
export {
  createTextGenerator,
  DEFAULT_MODEL,
  extractiveAnswer,
  NO_KNOWLEDGE_ANSWER,
  NO_KNOWLEDGE_SUMMARY,
  parseVerdict,
  sentencesOf,
  UNAVAILABLE_VERDICT,
  UNPARSABLE_VERDICT,
} from './textgen/index.js';
export type { AnyTool, RateClass, ToolAnnotations, ToolContext, ToolDefinition, ToolResult } from './tool.js';
export { makeContext, READ_ONLY, toolsFor } from './tool.js';
