import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const int = (def: number) => z.coerce.number().int().min(0).default(def);

/** The services that make up Lore; each may get its own database URL. */
export const SERVICE_NAMES = [
  'users',
  'queries',
  'approvals',
  'knowledge',
  'dens',
  'dms',
  'showcase',
  'docs',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const dbVars = Object.fromEntries(
  SERVICE_NAMES.flatMap((s) => [
    [`LORE_${s.toUpperCase()}_DB_URL`, z.string().optional()],
    [`LORE_${s.toUpperCase()}_DB_AUTH_TOKEN`, z.string().optional()],
  ]),
) as Record<string, z.ZodOptional<z.ZodString>>;

/**
 * Every environment variable Lore reads. Names here are the contract with operators
 * (the Kubernetes manifests are checked against this list).
 */
export const LoreConfigSchema = z.object({
  LORE_DATA_DIR: z.string().default('./data'),
  LORE_NODE_ID: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'lower-case letters, digits and dashes')
    .optional(),
  LORE_HOST: z.string().default('127.0.0.1'),
  LORE_PORT: int(7400),
  LORE_ALLOWED_HOSTS: z.string().optional(),
  LORE_TRUSTED_PROXIES: z.string().optional(),
  LORE_MAX_JSON_DEPTH: z.coerce.number().int().min(8).max(10_000).default(64),
  LORE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_API_KEY: z.string().optional(),
  /** One NATS URL, or a cluster's URLs separated by commas. */
  NATS_URL: z.string().optional(),
  /** JetStream replicas of Lore's stream and KV buckets: 3 on a three-server cluster. */
  /** NATS credentials, one form: user and password, a token, a user nkey seed or a `.creds` file. */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_NKEY_SEED: z.string().optional(),
  NATS_CREDS: z.string().optional(),
  /** Reply subjects' prefix; default `_INBOX.<NATS_USER>`, the inbox the shipped permissions give each user. */
  NATS_INBOX_PREFIX: z.string().optional(),
  /** Connect to NATS without credentials (a warning is logged). */
  LORE_NATS_INSECURE: bool.default(false),
  /** The network key (public, PEM or base64 of the PEM): node keys in the directory must be endorsed by it. */
  LORE_NETWORK_KEY: z
    .string()
    .transform((v) => (v.includes('BEGIN PUBLIC KEY') ? v : Buffer.from(v, 'base64').toString('utf8')))
    .refine((v) => v.includes('BEGIN PUBLIC KEY'), 'a public key (PEM, or its base64)')
    .optional(),
  /** This node's endorsement by the network key (`lore network sign-node`). */
  LORE_NODE_ENDORSEMENT: z.string().optional(),
  LORE_NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  LORE_DB_URL: z.string().optional(),
  LORE_DB_AUTH_TOKEN: z.string().optional(),
  ...dbVars,
  LORE_ACTIVE_WINDOW_MINUTES: int(15),
  LORE_AUTH_CACHE_SECONDS: int(30),
  LORE_RATE_LIMITS: bool.default(true),
  LORE_LLM_BASE_URL: z.url().optional(),
  LORE_LLM_MODEL: z.string().default('gpt-4o-mini'),
  LORE_LLM_API_KEY: z.string().optional(),
  LORE_EMBEDDINGS_BASE_URL: z.url().optional(),
  LORE_EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  LORE_EMBEDDINGS_API_KEY: z.string().optional(),
  LORE_SERVICES: z.string().optional(),
  LORE_SERVICES_FILE: z.string().optional(),
  LORE_HEALTH_INTERVAL_MS: int(5000),
  /** Seals the console's session cookies; replicas of the aggregator that share it share sessions. */
  LORE_CONSOLE_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /** Distributed mode: relay tools/call to Lore's services as it is (false: the full MCP exchange for every call). */
  LORE_RELAY: bool.default(true),
  LORE_KNOWLEDGE_ROOTS: z.string().optional(),
  LORE_QUERY_TTL_HOURS: int(72),
  /** How long a received query's drafting or evaluation is retried before it is marked undeliverable. */
  LORE_DELIVERY_RETRY_MINUTES: z.coerce.number().positive().default(15),
  /** The longest wait between two retries (the wait doubles from one second up to this). */
  LORE_DELIVERY_RETRY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(60),
  LORE_ANSWER_QUOTA_PER_MINUTE: int(10),
  /** Handles (comma-separated) that may ingest documentation corpora through docs_ingest. */
  LORE_DOCS_OPERATORS: z.string().optional(),
  LORE_ANSWER_QUOTA_PER_DAY: int(50),
  LORE_SEED_DENS: bool.default(true),
  LORE_INGEST_OWN_DOCS: bool.default(true),
  LORE_CRAWL_ALLOW_PRIVATE: bool.default(false),
  LORE_MAX_BODY_BYTES: int(1_048_576),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
});
export type LoreConfig = z.infer<typeof LoreConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parse the environment once, at start-up. Only `main.ts` passes `process.env` here. */
export function loadConfig(env: Record<string, string | undefined>): LoreConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = LoreConfigSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}

/** The database a service uses: its own URL, the shared single-service URL, or a file under the data dir. */
export function databaseFor(config: LoreConfig, service: string): { url: string; authToken?: string } {
  const key = service.toUpperCase();
  const env = config as unknown as Record<string, string | undefined>;
  const url = env[`LORE_${key}_DB_URL`] ?? config.LORE_DB_URL;
  const authToken = env[`LORE_${key}_DB_AUTH_TOKEN`] ?? config.LORE_DB_AUTH_TOKEN;
  if (url) return authToken ? { url, authToken } : { url };
  return { url: `file:${config.LORE_DATA_DIR.replace(/\/$/, '')}/${service}.db` };
}
