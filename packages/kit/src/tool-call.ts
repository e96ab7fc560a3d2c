import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { catalogBackend } from './catalog.js';
import type { CallInfo, McpBackend } from './mcp.js';
import { unknownTool } from './mcp.js';
import { type Runtime, runToolCall } from './pipeline.js';
import type { ServiceOptions } from './service.js';
import { withSpan } from './telemetry.js';
import type { AnyTool } from './tool.js';

/**
 * A service's tools as an MCP backend: every call takes the pipeline's steps 4–8 (pipeline.ts:
 * key check, input schema, control characters, rate limit, handler, output schema, error
 * mapping). Listing, resources and prompts come from the catalog.
 */

export { ERROR_META_KEY, errorResult, toolErrorOf } from './errors.js';
export type { Runtime } from './pipeline.js';

/**
 * JSON Schema for a zod schema as MCP clients expect it (an object, no `$schema`), without the
 * safe-integer bounds zod puts on every integer (every JSON integer a client parses is within
 * them anyway). Output schemas also write a subschema that repeats once, under `$defs`
 * (`sharedDefs`), and no `additionalProperties: false`: a host puts every tool's schemas before
 * its model on every turn.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ jsonSchema: js }) => {
      const s = js as Record<string, unknown>;
      if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
      if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
      // What a tool returns is what its handler builds, parsed by the schema before it is sent:
      // saying "nothing else" on each of its objects tells a client nothing it can use.
      if (io === 'output' && s.additionalProperties === false) delete s.additionalProperties;
    },
  }) as Record<string, unknown>;
  return (io === 'output' ? sharedDefs(rest) : rest) as Tool['inputSchema'];
}

/** A repeated subschema is moved to `$defs` only when that saves at least this many bytes. */
const MIN_SAVING = 64;

/**
 * Moves each subschema that occurs more than once (the same JSON, a citation or a profile in
 * several places) to `$defs`, named after the first property that holds it, and refers to it
 * with `$ref` wherever it was: the largest saving first, until none saves `MIN_SAVING` bytes.
 */
export function sharedDefs(root: Record<string, unknown>): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const out = structuredClone(root);
  for (;;) {
    const seen = new Map<string, { count: number; name: string }>();
    const visit = (node: unknown, key: string, top: boolean) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const n of node) visit(n, key, false);
        return;
      }
      const obj = node as Record<string, unknown>;
      if (!top && ('type' in obj || 'anyOf' in obj) && !('$ref' in obj)) {
        const json = JSON.stringify(obj);
        const e = seen.get(json);
        if (e) e.count++;
        else seen.set(json, { count: 1, name: key });
      }
      for (const [k, v] of Object.entries(obj))
        visit(v, k === 'properties' || k === 'items' || k === 'anyOf' ? key : k, false);
    };
    visit(out, 'schema', true);
    let best: { json: string; name: string; saving: number } | undefined;
    for (const [json, e] of seen) {
      if (e.count < 2) continue;
      const saving = (e.count - 1) * json.length - e.count * 30;
      if (saving >= MIN_SAVING && (!best || saving > best.saving)) best = { json, name: e.name, saving };
    }
    if (!best) break;
    let name = best.name.replace(/[^A-Za-z0-9_]/g, '') || 'def';
    for (let i = 2; name in defs; i++) name = `${best.name}${i}`;
    defs[name] = JSON.parse(best.json);
    const ref = { $ref: `#/$defs/${name}` };
    const replace = (node: unknown): unknown => {
      if (!node || typeof node !== 'object') return node;
      if (Array.isArray(node)) return node.map(replace);
      if (JSON.stringify(node) === best!.json) return { ...ref };
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, replace(v)]));
    };
    const replaced = replace(out) as Record<string, unknown>;
    for (const k of Object.keys(out)) delete out[k];
    Object.assign(out, replaced);
    // A definition may itself hold a later shared subschema.
    for (const [k, v] of Object.entries(defs)) if (k !== name) defs[k] = replace(v);
  }
  return Object.keys(defs).length ? { ...out, $defs: defs } : out;
}

export function describeTool(t: AnyTool): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: (t.inputJsonSchema as Tool['inputSchema'] | undefined) ?? jsonSchema(t.input, 'input'),
    outputSchema: jsonSchema(t.output, 'output'),
    // The title once, at the top (2025-06-18 and later); annotations carry only the four hints.
    annotations: t.annotations,
    ...(t.meta ? { _meta: t.meta } : {}),
  };
}

export function toolBackend<P>(opts: ServiceOptions<P>, rt: Runtime): McpBackend {
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  // The tools' JSON Schemas are built on the first tools/list, not at start: a process nobody
  // has listed yet keeps none of them.
  let listed: Tool[] | undefined;

  async function call(
    name: string,
    args: Record<string, unknown>,
    info: CallInfo,
  ): Promise<CallToolResult | InputRequiredResult> {
    const tool = byName.get(name);
    if (!tool) throw unknownTool(name);
    const incoming = {
      requestId: info.requestId,
      ...(info.traceparent ? { traceparent: info.traceparent } : {}),
    };
    return withSpan(
      `tools/call ${name}`,
      { 'mcp.tool': name, 'lore.service': opts.name },
      incoming,
      (cc, span) =>
        runToolCall(tool, args, info, rt, opts.ports, cc.traceparent, (code) =>
          span.setAttribute('lore.code', code),
        ),
    );
  }

  return {
    info: { name: `lore-${opts.name}`, version: opts.version, ...(opts.title ? { title: opts.title } : {}) },
    ...(opts.instructions ? { instructions: opts.instructions } : {}),
    listTools: () => {
      listed ??= opts.tools.map(describeTool);
      return listed;
    },
    callTool: call,
    ...catalogBackend(opts),
  };
}
