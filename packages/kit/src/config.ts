import { z } from 'zod';

/** A yes/no variable: `true`/`false`, `1`/`0`, `yes`/`no` (an already parsed boolean passes as it is). */
export const envBool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes'),
]);
/** A whole number ≥ 0 with a default. */
export const envInt = (def: number) => z.coerce.number().int().min(0).default(def);

/**
 * What every Lore process reads: where it listens and keeps its data, its node identity, NATS,
 * the network's trust, shared limits and telemetry. Each service extends it with its own
 * settings (its `src/config.ts`); the aggregator composes all of them. Names here are the
 * contract with operators (the Kubernetes manifests are checked against the composed list).
 */
export const BaseConfigSchema = z.object({
  LORE_DATA_DIR: z.string().default('./data'),
  LORE_NODE_ID: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'lower-case letters, digits and dashes')
    .optional(),
  /**
   * The node identity file (node.json: `pnpm node-identity <id> > node.json`) that every process
   * of one node shares when each runs with its own data directory; default `$LORE_DATA_DIR/node.json`.
   */
  LORE_NODE_FILE: z.string().min(1).optional(),
  LORE_HOST: z.string().default('127.0.0.1'),
  LORE_PORT: envInt(7400),
  LORE_ALLOWED_HOSTS: z.string().optional(),
  LORE_TRUSTED_PROXIES: z.string().optional(),
  LORE_MAX_JSON_DEPTH: z.coerce.number().int().min(8).max(10_000).default(64),
  LORE_MAX_BODY_BYTES: envInt(1_048_576),
  LORE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_API_KEY: z.string().optional(),
  /** One NATS URL, or a cluster's URLs separated by commas. */
  NATS_URL: z.string().optional(),
  /** NATS credentials, one form: user and password, a token, a user nkey seed or a `.creds` file. */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_NKEY_SEED: z.string().optional(),
  NATS_CREDS: z.string().optional(),
  /** Reply subjects' prefix; default `_INBOX.<NATS_USER>`, the inbox the shipped permissions give each user. */
  NATS_INBOX_PREFIX: z.string().optional(),
  /**
   * Connect to NATS without credentials (a warning is logged): `true` for a NATS on loopback
   * only, `i-understand` for one elsewhere.
   */
  LORE_NATS_INSECURE: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'i-understand'])])
    .transform((v) => (v === 'i-understand' ? v : v === true || v === 'true' || v === '1' || v === 'yes'))
    .default(false),
  /** JetStream replicas of Lore's stream and KV buckets: 3 on a three-server cluster. */
  LORE_NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** The network key (public, PEM or base64 of the PEM): node keys in the directory must be endorsed by it. */
  LORE_NETWORK_KEY: z
    .string()
    .transform((v) => (v.includes('BEGIN PUBLIC KEY') ? v : Buffer.from(v, 'base64').toString('utf8')))
    .refine((v) => v.includes('BEGIN PUBLIC KEY'), 'a public key (PEM, or its base64)')
    .optional(),
  /**
   * A network of several operators (infra/README.md, "Many operators, one network"): this
   * operator's own NATS as the `network` user of the account its leaf connection to the hub
   * binds (`pnpm nats:leaf`). Unset: the node serves only the nodes that share its NATS.
   */
  LORE_NETWORK_NATS_URL: z.string().optional(),
  LORE_NETWORK_NATS_USER: z.string().default('network'),
  LORE_NETWORK_NATS_PASSWORD: z.string().optional(),
  /** How often the node announces itself (its key, its agents) to the network. */
  LORE_NETWORK_ANNOUNCE_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  /**
   * How long another operator's node may stay silent (no announcement) before its agents leave
   * this node's directory; unset: five announce periods (150 s by default).
   */
  LORE_NETWORK_DIRECTORY_TTL_SECONDS: z.coerce
    .number()
    .min(0.5)
    .max(30 * 86_400)
    .optional(),
  /** Messages each other node may send this one per minute (the hub limits no message rate). */
  LORE_NETWORK_PEER_RATE: envInt(120),
  /** …and in a burst. */
  LORE_NETWORK_PEER_BURST: envInt(60),
  /** The largest message accepted from another node, in bytes. */
  LORE_NETWORK_MAX_BYTES: envInt(256 * 1024),
  /** This node's endorsement by the network key (`lore network sign-node`). */
  LORE_NODE_ENDORSEMENT: z.string().optional(),
  /** One database for a service that has no `LORE_<SERVICE>_DB_URL` of its own. */
  LORE_DB_URL: z.string().optional(),
  LORE_DB_AUTH_TOKEN: z.string().optional(),
  LORE_AUTH_CACHE_SECONDS: envInt(30),
  /**
   * A factor over the deadline of every request between services on the bus (each caller's own
   * figure, 5 s where it names none): 1 by default; more on a machine too slow for those figures.
   * The test tiers set it from `LORE_TEST_TIME_SCALE` (vitest.timing.ts).
   */
  LORE_BUS_TIMEOUT_SCALE: z.coerce.number().min(1).max(100).default(1),
  LORE_RATE_LIMITS: envBool.default(true),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
});
export type BaseConfig = z.infer<typeof BaseConfigSchema>;
/** The configuration every service gets: the base settings (a service reads its own with {@link settingsOf}). */
export type LoreConfig = BaseConfig;

/** A service's own database, `LORE_<SERVICE>_DB_URL` and its token (else `LORE_DB_URL`, else a file). */
export function databaseSettings<const N extends string>(service: N) {
  const key = service.toUpperCase() as Uppercase<N>;
  return {
    [`LORE_${key}_DB_URL`]: z.string().optional(),
    [`LORE_${key}_DB_AUTH_TOKEN`]: z.string().optional(),
  } as Record<
    `LORE_${Uppercase<N>}_DB_URL` | `LORE_${Uppercase<N>}_DB_AUTH_TOKEN`,
    z.ZodOptional<z.ZodString>
  >;
}

/** The language model a service drafts with (an OpenAI-compatible API; extractive without one). */
export const LlmSettings = {
  LORE_LLM_BASE_URL: z.url().optional(),
  LORE_LLM_MODEL: z.string().default('gpt-4o-mini'),
  LORE_LLM_API_KEY: z.string().optional(),
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parse the environment once, at start-up, with a process's schema (the base one by default;
 * a service's own, or the aggregator's composition). Only entry points pass `process.env` here.
 */
export function loadConfig<S extends z.ZodType<object> = typeof BaseConfigSchema>(
  env: Record<string, string | undefined>,
  schema: S = BaseConfigSchema as unknown as S,
): z.output<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  return parseSettings(schema, present);
}

/**
 * A service's own settings out of the configuration it was given: the values its entry point
 * parsed already pass as they are, the ones it left as text (or left out) are parsed (or
 * defaulted) here. A bad value is a {@link ConfigError} naming the variable.
 */
export function settingsOf<S extends z.ZodType<object>>(schema: S, config: object): z.output<S> {
  return parseSettings(schema, config);
}

function parseSettings<S extends z.ZodType<object>>(schema: S, input: object): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}

/** The database a service uses: its own URL, the shared single-service URL, or a file under the data dir. */
export function databaseFor(config: BaseConfig, service: string): { url: string; authToken?: string } {
  const key = service.toUpperCase();
  const env = config as unknown as Record<string, string | undefined>;
  const url = env[`LORE_${key}_DB_URL`] ?? config.LORE_DB_URL;
  const authToken = env[`LORE_${key}_DB_AUTH_TOKEN`] ?? config.LORE_DB_AUTH_TOKEN;
  if (url) return authToken ? { url, authToken } : { url };
  return { url: `file:${config.LORE_DATA_DIR.replace(/\/$/, '')}/${service}.db` };
}
