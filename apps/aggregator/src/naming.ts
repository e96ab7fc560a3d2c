import { createHash } from 'node:crypto';

/** What MCP clients accept as a tool name. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A valid tool name for any string: invalid characters become `_`, long names end in a stable hash. */
export function sanitizeToolName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  if (clean.length <= 64 && clean === name) return clean;
  if (clean.length <= 64) return clean;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${clean.slice(0, 55)}_${hash}`;
}

export interface NamedTool {
  exposed: string;
  upstream: string;
  original: string;
}

/**
 * Exposed names for every upstream's tools, in upstream order. An upstream with a prefix
 * gets it on every tool; otherwise a tool keeps its (sanitized) name unless an earlier
 * upstream holds it, in which case it takes the upstream's name as prefix. Never fails.
 */
export function assignNames(
  upstreams: Array<{ name: string; prefix?: string | undefined; tools: string[] }>,
  onCollision: (tool: string, upstream: string, exposed: string) => void = () => {},
): NamedTool[] {
  const taken = new Set<string>();
  const out: NamedTool[] = [];
  for (const u of upstreams) {
    for (const original of u.tools) {
      let exposed = sanitizeToolName(u.prefix ? `${u.prefix}_${original}` : original);
      if (taken.has(exposed)) {
        const prefixed = sanitizeToolName(`${u.prefix ?? u.name}_${original}`);
        let candidate = prefixed;
        for (let i = 2; taken.has(candidate); i++) candidate = sanitizeToolName(`${prefixed}_${i}`);
        onCollision(original, u.name, candidate);
        exposed = candidate;
      }
      taken.add(exposed);
      out.push({ exposed, upstream: u.name, original });
    }
  }
  return out;
}
