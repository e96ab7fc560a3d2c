/**
 * `@lore/kit`: the runtime a service is built from (config, logging, the Hono app and MCP serving,
 * the tool-call pipeline, tools, auth, rate limits, errors, the network directory, telemetry).
 * The other concerns have entry points of their own: `@lore/kit/bus`, `@lore/kit/db`,
 * `@lore/kit/moderation`, `@lore/kit/nats` and `@lore/kit/testing`.
 */
export { type EmbeddingsConfig, EmbeddingsSettings } from '@lore/embed';
export type { ServiceResource } from './apps.js';
export { appHtml, appRuntime, appToolMeta, MCP_APP_MIME, MCP_APPS_EXTENSION } from './apps.js';
export {
  type AgentKeys,
  type AgentKeysContract,
  AUTHENTICATOR_LISTENER,
  Authenticator,
  agentKeysOverBus,
  bearerToken,
  generateApiKey,
  hashApiKey,
  KEY_PREFIX,
} from './auth.js';
export type { Completer, ServicePrompt, ServiceResourceTemplate } from './catalog.js';
export { catalogBackend } from './catalog.js';
export { type FlagSpec, type FlagValues, parseCommandLine } from './cli-args.js';
export {
  BackgroundWork,
  type BackgroundWorkOptions,
  GroupCommit,
  limiter,
  settleInPool,
} from './concurrency.js';
export type { BaseConfig, LoreConfig } from './config.js';
export {
  BaseConfigSchema,
  ConfigError,
  databaseFor,
  databaseSettings,
  envBool,
  envInt,
  LlmSettings,
  loadConfig,
  settingsOf,
} from './config.js';
export { TOOL_ERROR_HEADER, wireToolResult } from './direct-call.js';
export { trustedProxies } from './edge.js';
export {
  conflict,
  ERROR_META_KEY,
  errorResult,
  forbidden,
  fromZodError,
  invalid,
  notFound,
  rateLimited,
  ToolError,
  toolErrorOf,
  toToolError,
  unauthenticated,
  unavailable,
  unsupportedMedia,
} from './errors.js';
export { formatCount, plural, preview, timeAgo } from './format.js';
export type { HttpAppOptions, InterceptAnswer, InterceptedRequest } from './http-app.js';
export { nodeGoneHook } from './http-app.js';
export { inProcessFetch } from './in-process.js';
export type { Logger } from './logger.js';
export { createLogger } from './logger.js';
export type { AuthExtra, CallInfo, ElicitationAnswer, ElicitationPort, McpBackend } from './mcp.js';
export {
  appOnly,
  createMcpFactory,
  ELICITATION_KEY,
  InputRequiredSignal,
  SAMPLING_KEY,
  TOOLSETS_HEADER,
  unknownTool,
} from './mcp.js';
export { mergedMetrics, ServiceMetrics } from './metrics.js';
export type {
  AgentCard,
  Announcement,
  CarriedEvent,
  DirectoryTrust,
  HandleRecord,
  NetworkDirectory,
  NetworkLinkOptions,
  NetworkTraffic,
  NodeKeyProof,
  NodeKeyRecord,
  Receipt,
  Refusal,
  Route,
  SignedEnvelope,
  VerifyOutcome,
} from './network/index.js';
export {
  createDirectory,
  createNetworkKey,
  DIRECTORY_TTL_ANNOUNCES,
  directoryTrust,
  EnvelopeSigner,
  endorseNodeKey,
  handleKey,
  MemoryDirectory,
  NatsDirectory,
  NET_PREFIX,
  NetworkLink,
  NodeKeyRefusedError,
  NodeKeyTrust,
  netSubjects,
  networkUserPermissions,
  parseNetSubject,
  qualifiedHandle,
  registerNodeKey,
  signAnnouncement,
  signRotation,
  verifyEnvelope,
} from './network/index.js';
export {
  REQUEST_SIGNATURE_HEADER,
  RequestSigner,
  RequestVerifier,
  SIGNED_REQUESTS,
  UnsignedRequestError,
} from './network/request-signing.js';
export type { NodeIdentity } from './node.js';
export { loadNodeIdentity, nodeIdentityFile, rotateNodeIdentity } from './node.js';
export {
  type BodyLimits,
  type CallBody,
  type Caller,
  callerOf,
  edgeFields,
  type HostCheck,
  hostCheck,
  NOT_JSON,
  parseCallBody,
  type Runtime,
  readCallBody,
  runToolCall,
  TOO_DEEP,
} from './pipeline.js';
export { Counter, Gauge, Histogram, Registry } from './prometheus.js';
export {
  KvRateLimitStore,
  MemoryRateLimitStore,
  RATE_LIMIT_BUCKET,
  RATE_LIMITS,
  RateLimiter,
  type RateLimitStore,
  sharedRateLimitStore,
} from './rate-limit.js';
export type { HttpServerHandle, Lane } from './serve.js';
export { assertPortFree, PortInUseError, parsePort, serveHttp, serveOverStdio, UsageError } from './serve.js';
export type { LoreService, ServiceDeps, ServiceOptions } from './service.js';
export { createHttpApp, createService } from './service.js';
export type { LegacySessionOptions } from './sessions.js';
export { LegacySessions } from './sessions.js';
export type { StandaloneOptions } from './standalone.js';
export { runStandalone, STANDALONE_USAGE, serviceMain, startupFailure, stopWithin } from './standalone.js';
export type { StatsResponderOptions } from './stats.js';
export { DailyCalls, statsResponder, utcDayStart } from './stats.js';
export type { CallContext } from './telemetry.js';
export { callContext, nextTraceparent, spansExported, startTelemetry, withSpan } from './telemetry.js';
export { type NearHit, sharedEmbedder, TextVectors, type VectorText } from './text-vectors.js';
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
} from './textgen-port.js';
export type { AnyTool, RateClass, ToolAnnotations, ToolContext, ToolDefinition, ToolResult } from './tool.js';
export { makeContext, READ_ONLY, toolsFor } from './tool.js';
export { describeTool, jsonSchema } from './tool-call.js';
