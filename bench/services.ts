/** Helpers for suites that host Lore services in the bench process (in-process bus and fetch). */
import { AggregatorConfigSchema } from '@lore/aggregator';
import { createLogger, type LoreConfig, loadConfig, type ServiceDeps } from '@lore/kit';
import { type EventBus, MemoryBus } from '@lore/kit/bus';
import { appFetch, type Client, connectClient, ok } from '@lore/kit/testing';

/** The environment every in-process suite runs with: no rate limits, no LLM, quiet. */
export const BENCH_ENV: Record<string, string> = {
  LORE_RATE_LIMITS: 'false',
  LORE_LOG_LEVEL: 'silent',
  LORE_INGEST_OWN_DOCS: 'false',
  LORE_LLM_BASE_URL: '',
  LORE_EMBEDDINGS: 'off',
  LORE_EMBEDDINGS_BASE_URL: '',
  LORE_MAX_BODY_BYTES: String(8 * 1024 * 1024),
};

export function benchConfig(dataDir: string, env: Record<string, string> = {}): LoreConfig {
  return loadConfig({ ...BENCH_ENV, LORE_DATA_DIR: dataDir, ...env }, AggregatorConfigSchema);
}

/** Service dependencies on a data directory of the suite's, over an in-process bus. */
export function benchDeps(
  dataDir: string,
  env: Record<string, string> = {},
  bus: EventBus = new MemoryBus(),
): ServiceDeps {
  const config = benchConfig(dataDir, env);
  return {
    config,
    bus,
    nodeId: 'bench-node',
    log: createLogger({ name: 'bench', level: 'silent' }),
  };
}

export interface Agent {
  handle: string;
  id: string;
  key: string;
}

/** Registers an agent through the users service's MCP endpoint (in-process fetch). */
export async function registerAgent(
  users: { fetch: (req: Request) => Response | Promise<Response> } | Client,
  handle: string,
): Promise<Agent> {
  const anon = 'callTool' in users ? users : await connectClient(appFetch(users));
  const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
    username: handle,
    email: `${handle}@example.com`,
    displayName: handle,
  });
  if (!('callTool' in users)) await anon.close();
  return { handle, id: r.data.agent.id, key: r.data.apiKey };
}

/** A writable stream that keeps what is written (a CLI's stdout and stderr). */
export function textSink(): { stream: NodeJS.WritableStream; text: () => string } {
  let out = '';
  const stream = {
    write(s: string) {
      out += s;
      return true;
    },
  } as NodeJS.WritableStream;
  return { stream, text: () => out };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it is true; throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs: number, everyMs = 5): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not done within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
