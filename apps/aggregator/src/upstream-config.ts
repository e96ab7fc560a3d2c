import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';

const Name = z.string().regex(/^[a-z][a-z0-9_-]{0,30}$/, 'lower-case letters, digits, _ and -');

export const UpstreamConfig = z
  .object({
    name: Name,
    /** Streamable HTTP endpoint. */
    url: z.url().optional(),
    /** Or a command speaking MCP over stdio. */
    command: z.array(z.string()).min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    /** `lore`: one of Lore's own services (gets the caller's Authorization). */
    kind: z.enum(['lore', 'external']).default('external'),
    /** Prefix for every tool of this upstream (`<prefix>_<tool>`). */
    prefix: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,20}$/)
      .optional(),
    /** External upstreams get the caller's Authorization only when this is set. */
    forwardAuthorization: z.boolean().default(false),
    headers: z.record(z.string(), z.string()).optional(),
    timeoutMs: z.number().int().positive().default(60_000),
  })
  .refine((u) => !!u.url !== !!u.command, { message: 'give exactly one of url or command' });
export type UpstreamConfig = z.infer<typeof UpstreamConfig>;

const FileSchema = z.object({ upstreams: z.array(UpstreamConfig).min(1) });

/**
 * Upstreams from `LORE_SERVICES` (`users=http://users:8080/mcp,queries=…`, all Lore services)
 * and/or `LORE_SERVICES_FILE` (YAML or JSON: `{ upstreams: [...] }`, Lore and external).
 */
export function readUpstreams(env: {
  LORE_SERVICES?: string | undefined;
  LORE_SERVICES_FILE?: string | undefined;
}): UpstreamConfig[] {
  const out: UpstreamConfig[] = [];
  if (env.LORE_SERVICES) {
    for (const part of env.LORE_SERVICES.split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const eq = part.indexOf('=');
      if (eq < 1) throw new Error(`LORE_SERVICES: expected name=url, got "${part}"`);
      const parsed = UpstreamConfig.safeParse({
        name: part.slice(0, eq),
        url: part.slice(eq + 1),
        kind: 'lore',
      });
      if (!parsed.success) throw new Error(`LORE_SERVICES: ${part}: ${parsed.error.issues[0]?.message}`);
      out.push(parsed.data);
    }
  }
  if (env.LORE_SERVICES_FILE) {
    const text = readFileSync(env.LORE_SERVICES_FILE, 'utf8');
    const data = env.LORE_SERVICES_FILE.endsWith('.json')
      ? JSON.parse(text)
      : // `yaml` only when a YAML file names the upstreams (most starts have none).
        (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
    const parsed = FileSchema.safeParse(data);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new Error(`LORE_SERVICES_FILE ${env.LORE_SERVICES_FILE}: ${i?.path.join('.')}: ${i?.message}`);
    }
    out.push(...parsed.data.upstreams);
  }
  const seen = new Set<string>();
  for (const u of out) {
    if (seen.has(u.name)) throw new Error(`upstream "${u.name}" is configured twice`);
    seen.add(u.name);
  }
  return out;
}
