/** Shared pieces of the reliability suite: the services under test, agents, outcome checks. */
import type { LoreConfig } from '@lore/kit';
import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { type AllInOne, SERVICES, startAllInOne } from '../../src/index.js';

/** The services under test: the all-in-one catalog exactly as the lead lists it. */
export const RELIABILITY_SERVICES = SERVICES;

/** Quiet, fast defaults: no own-docs ingest at start, quotas out of the way unless a test wants them. */
export const BASE_ENV: Record<string, string> = {
  LORE_INGEST_OWN_DOCS: 'false',
  LORE_ANSWER_QUOTA_PER_MINUTE: '1000000',
  LORE_ANSWER_QUOTA_PER_DAY: '1000000',
};

export interface Lore {
  lore: AllInOne;
  config: LoreConfig;
  dir: string;
  anon: Client;
  client(key?: string): Promise<Client>;
  register(handle: string, extra?: Record<string, unknown>): Promise<Agent>;
  close(): Promise<void>;
}

export interface Agent {
  id: string;
  handle: string;
  key: string;
  email: string;
  client: Client;
}

/** The all-in-one aggregator over every service, each with its own database in a temp dir. */
export async function startLore(env: Record<string, string> = {}, dataDir?: string): Promise<Lore> {
  const tmp = dataDir ? undefined : tempDir('lore-rel-');
  const dir = dataDir ?? tmp!.path;
  const config = testConfig(dir, { ...BASE_ENV, ...env });
  const lore = await startAllInOne(config, { services: RELIABILITY_SERVICES });
  const client = (key?: string) => connectClient(appFetch(lore.app), key ? { key } : {});
  const anon = await client();
  return {
    lore,
    config,
    dir,
    anon,
    client,
    async register(handle, extra = {}) {
      const email = (extra.email as string | undefined) ?? `${handle}@example.com`;
      const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
        username: handle,
        email,
        displayName: handle,
        ...extra,
      });
      return { id: r.data.agent.id, handle, key: r.data.apiKey, email, client: await client(r.data.apiKey) };
    },
    async close() {
      await lore.close();
      tmp?.cleanup();
    },
  };
}

/** Codes a tool may answer a well-formed call with by design (besides success). */
export const CALLER_CODES = new Set([400, 401, 403, 404, 409, 415]);

export interface Outcome {
  ok: boolean;
  code: number | undefined;
  field: unknown;
  constraint: unknown;
  message: unknown;
  text: string;
  raw: CallToolResult;
}

/** Unpack a tool result: success, or the error code and the fields a 400 must carry. */
export function outcomeOf(raw: CallToolResult): Outcome {
  const text = raw.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  const error = raw._meta?.['lore/error'] as Record<string, unknown> | undefined;
  const data = error?.data as Record<string, unknown> | undefined;
  return {
    ok: !raw.isError,
    code: raw.isError ? (error?.code as number | undefined) : undefined,
    field: data?.field,
    constraint: data?.constraint,
    message: error?.message,
    text,
    raw,
  };
}

export { call, ok };

/** A PRNG with a fixed seed (mulberry32): every generated case is reproducible from the seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    bool: () => next() < 0.5,
  };
}
export type Prng = ReturnType<typeof prng>;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Percentile of a list of numbers (nearest rank). */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Poll until `check` holds (for hooks, where expect.poll is not available). */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await fn();
    if (check(last)) return last;
    if (Date.now() > end)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`,
      );
    await sleep(intervalMs);
  }
}
