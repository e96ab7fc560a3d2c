export { Authenticator, KEY_PREFIX, bearerToken, generateApiKey, hashApiKey } from './auth.js';
export {
  BusNoResponderError,
  BusRemoteError,
  BusTimeoutError,
  MemoryBus,
  NatsBus,
  createBus,
  subjectMatches,
} from './bus/index.js';
export type { DeliveryInfo, EventBus, EventHandler, RequestHandler, SubscribeOptions, Subscription } from './bus/index.js';
export { ConfigError, LoreConfigSchema, SERVICE_NAMES, databaseFor, loadConfig } from './config.js';
export type { LoreConfig, ServiceName } from './config.js';
export { inbox, migrationsFolder, openDatabase, outbox } from './db/index.js';
export type { Database, OpenDatabaseOptions, Transaction } from './db/index.js';
export {
  ToolError,
  conflict,
  forbidden,
  fromZodError,
  invalid,
  notFound,
  rateLimited,
  toToolError,
  unauthenticated,
  unavailable,
} from './errors.js';
export { createLogger } from './logger.js';
export type { Logger } from './logger.js';
export { InputRequiredSignal, SAMPLING_KEY, createMcpFactory, unknownTool } from './mcp.js';
export type { AuthExtra, CallInfo, McpBackend } from './mcp.js';
export { ServiceMetrics, mergedMetrics } from './metrics.js';
export { Outbox, handleOnce } from './outbox.js';
export type { Emit } from './outbox.js';
export { RATE_LIMITS, RateLimiter } from './rate-limit.js';
export { serveHttp, serveOverStdio } from './serve.js';
export type { HttpServerHandle } from './serve.js';
export { createHttpApp, createService, describeTool, errorResult, jsonSchema } from './service.js';
export type { HttpAppOptions, LoreService, ServiceDeps, ServiceOptions } from './service.js';
export { openServiceStore } from './store.js';
export type { ServiceStore } from './store.js';
export { READ_ONLY, makeContext, toolsFor } from './tool.js';
export type { AnyTool, RateClass, ToolAnnotations, ToolContext, ToolDefinition, ToolResult } from './tool.js';
export { loadNodeIdentity } from './node.js';
export type { NodeIdentity } from './node.js';
export { runStandalone } from './standalone.js';
export type { StandaloneOptions } from './standalone.js';
export {
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  STOP_WORDS,
  cosineTopK,
  excerpt,
  float32FromBuffer,
  float32ToBuffer,
  ftsMatchQuery,
  htmlToMarkdown,
  isContentTerm,
  keywords,
  pdfToText,
  queryTerms,
  reciprocalRankFusion,
  splitDocument,
  tokenize,
} from './text/index.js';
export type { DocumentChunk, SplitOptions } from './text/index.js';
export {
  DEFAULT_MODEL,
  NO_KNOWLEDGE_ANSWER,
  NO_KNOWLEDGE_SUMMARY,
  UNAVAILABLE_VERDICT,
  UNPARSABLE_VERDICT,
  createTextGenerator,
  extractiveAnswer,
  parseVerdict,
} from './textgen/index.js';
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
export { EnvelopeSigner, MemoryDirectory, NatsDirectory, createDirectory, verifyEnvelope } from './network/index.js';
export type { HandleRecord, NetworkDirectory, SignedEnvelope, VerifyOutcome } from './network/index.js';
