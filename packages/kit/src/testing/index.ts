import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type { Client } from '@modelcontextprotocol/client';

import type { VerifiedAgent } from '@lore/schema/identity';
import type { AgentKeys } from '../auth.js';
import { hashApiKey } from '../auth.js';
import { MemoryBus } from '../bus/memory.js';
import type { EventBus } from '../bus/types.js';
import { BaseConfigSchema, type LoreConfig, loadConfig } from '../config.js';
import { inProcessFetch } from '../in-process.js';
import { createLogger } from '../logger.js';
import type { LoreService, ServiceDeps } from '../service.js';

/** A fresh directory for a test's databases; removed by the returned function. */
export function tempDir(prefix = 'lore-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The base configuration of a test, keeping the variables the base does not know as text: each
 * service parses its own settings out of them (`settingsOf`), as its entry point would.
 */
export function testConfig(dataDir: string, env: Record<string, string> = {}): LoreConfig {
  // No embedding model in tests unless one asks for it (LORE_EMBEDDINGS=local, or an endpoint):
  // loading it takes a second and some 200 MB per service, and most tests never search by meaning.
  const embeddings = env.LORE_EMBEDDINGS_BASE_URL ? {} : { LORE_EMBEDDINGS: 'off' };
  // The parse time limit the test tiers size for the machine (vitest.timing.ts), unless a test sets its own.
  // And the bus deadlines they size for it.
  const timing = Object.fromEntries(
    (['LORE_INGEST_TIME_LIMIT_MS', 'LORE_BUS_TIMEOUT_SCALE'] as const)
      .filter((name) => process.env[name])
      .map((name) => [name, process.env[name] as string]),
  );
  return loadConfig(
    { LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'silent', ...embeddings, ...timing, ...env },
    BaseConfigSchema.loose(),
  );
}

/** Dependencies for services under test: temp databases, an in-process bus, quiet logs. */
export function testDeps(env: Record<string, string> = {}, given?: EventBus) {
  const dir = tempDir();
  const config = testConfig(dir.path, env);
  const bus = given ?? new MemoryBus(undefined, undefined, config.LORE_BUS_TIMEOUT_SCALE);
  const deps: ServiceDeps = {
    config,
    bus,
    nodeId: 'test-node',
    log: createLogger({ name: 'test', level: env.LORE_LOG_LEVEL ?? 'silent' }),
  };
  return {
    deps,
    dir: dir.path,
    async cleanup() {
      await bus.close();
      dir.cleanup();
    },
  };
}

/**
 * `AgentKeys` for a service under test that needs no key service: `known` maps API keys (not
 * their hashes) to their agents; nothing is ever revoked.
 */
export const memoryAgentKeys = (known: Record<string, VerifiedAgent>) => (): AgentKeys => {
  const byHash = new Map(Object.entries(known).map(([key, agent]) => [hashApiKey(key), agent]));
  return {
    lookup: async (keyHash) => byHash.get(keyHash) ?? null,
    onRevoked: async () => ({ close: async () => {} }),
  };
};

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface ConnectOptions {
  key?: string;
  /** `modern` speaks 2026-07-28 (stateless); `legacy` the 2025-11-25 handshake. Default modern. */
  era?: 'modern' | 'legacy';
  url?: string;
  name?: string;
  headers?: Record<string, string>;
  capabilities?: ConstructorParameters<typeof Client>[1] extends infer O
    ? O extends { capabilities?: infer C }
      ? C
      : never
    : never;
}

/** A real MCP client over an in-process fetch (an app's `fetch`), or over HTTP when given a URL only. */
export async function connectClient(
  fetchImpl: FetchLike | undefined,
  opts: ConnectOptions = {},
): Promise<Client> {
  const client = new Client(
    { name: opts.name ?? 'lore-test', version: '1.0.0' },
    {
      ...(opts.era === 'legacy' ? {} : { versionNegotiation: { mode: 'auto' as const } }),
      ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
    },
  );
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  const transport = new StreamableHTTPClientTransport(new URL(opts.url ?? 'http://127.0.0.1/mcp'), {
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

/** An app's fetch as a client fetch: the URL's host is ignored. */
export const appFetch = (app: { fetch: (req: Request) => Response | Promise<Response> }): FetchLike =>
  inProcessFetch(app);

export interface ToolCallOutcome<T = Record<string, unknown>> {
  text: string;
  data: T;
  isError: boolean;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  raw: CallToolResult;
}

/** Call a tool and unpack the result (text, structured content, error). */
export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCallOutcome<T>> {
  const raw = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = raw.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  const sc = (raw.structuredContent ?? {}) as Record<string, unknown>;
  const outcome: ToolCallOutcome<T> = { text, data: sc as T, isError: !!raw.isError, raw };
  if (raw.isError) outcome.error = raw._meta?.['lore/error'] as ToolCallOutcome['error'];
  return outcome;
}

/** Call a tool that must succeed; throws with the tool's own message otherwise. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
) {
  const r = await call<T>(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r;
}

export { seededRandom } from '@lore/search/testing';

export interface WithUsers<S extends LoreService> {
  service: S;
  users: LoreService;
  /** The service's dependencies (its bus is shared with users). */
  deps: ServiceDeps;
  /** Registers an agent through users; its API key and id. */
  register(username: string): Promise<{ key: string; id: string }>;
  /** Registers an agent and connects it to the service under test with its key. */
  agent(username: string): Promise<Client>;
  /** A client of the service under test without a key. */
  anonymous(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * A service under test beside a users service on one in-process bus, as in a deployment:
 * agents register through users and call the service with their keys. Users runs without rate
 * limits, since a test registers many agents from one address.
 */
export async function withUsers<S extends LoreService>(
  createUsers: (deps: ServiceDeps) => Promise<LoreService>,
  create: (deps: ServiceDeps) => Promise<S>,
  env: Record<string, string> = {},
): Promise<WithUsers<S>> {
  const own = testDeps(env);
  const usersEnv = testDeps({ LORE_RATE_LIMITS: 'false' }, own.deps.bus);
  const users = await createUsers(usersEnv.deps);
  const service = await create(own.deps);
  await users.start();
  await service.start();
  const anonUsers = await connectClient(appFetch(users.app));
  const register = async (username: string) => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anonUsers, 'agent_register', {
      username,
      email: `${username}@example.com`,
      displayName: username,
    });
    return { key: r.data.apiKey, id: r.data.agent.id };
  };
  return {
    service,
    users,
    deps: own.deps,
    register,
    agent: async (username) => connectClient(appFetch(service.app), { key: (await register(username)).key }),
    anonymous: () => connectClient(appFetch(service.app)),
    async close() {
      await service.stop();
      await users.stop();
      await usersEnv.cleanup();
      await own.cleanup();
    },
  };
}

export { APPS_HOST, type ConformanceOptions, describeConformance } from './conformance.js';
export { compressionBombPdf, deeplyNestedHtml, deeplyNestedJson, inflatedStringPdf } from './hostile.js';
export { freePort, NATS_URL, NatsServerProcess, natsAvailable, provisionAsOps, reachable } from './nats.js';
export { NatsAuthFixture, nodeIdentityFile, renderNatsAuth, shareNodeIdentity } from './nats-auth.js';
export { NatsCluster, NatsClusterNode, type NatsClusterOptions } from './nats-cluster.js';
export { makePdf } from './pdf.js';
export { type RoundRobinProxy, roundRobinProxy } from './proxy.js';
export { type ShutdownOutcome, stopAfterNatsDies } from './shutdown.js';
export { type SqldOptions, SqldProcess, sqldBinary, startSqlds } from './sqld.js';
export { scaled, testTimeScale } from './timing.js';
export { eventually, migrationsBefore } from './upgrade.js';
