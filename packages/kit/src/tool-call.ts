import type { ToolErrorBody } from '@lore/schema/errors';
import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Authenticator } from './auth.js';
import { catalogBackend } from './catalog.js';
import { fromZodError, rateLimited, ToolError, toToolError, unauthenticated } from './errors.js';
import { controlCharacterError } from './input.js';
import type { Logger } from './logger.js';
import { type CallInfo, InputRequiredSignal, type McpBackend, unknownTool } from './mcp.js';
import type { ServiceMetrics } from './metrics.js';
import { RATE_LIMITS, type RateLimiter } from './rate-limit.js';
import type { ServiceOptions } from './service.js';
import { withSpan } from './telemetry.js';
import { type AnyTool, makeContext } from './tool.js';

/**
 * A service's tools as an MCP backend: every call goes key check, input schema, control
 * characters, rate limit, handler, output schema; a failure becomes an error result with
 * `{code, message, data}` in `_meta`. Listing, resources and prompts come from the catalog.
 */

export interface Runtime {
  auth: Authenticator;
  limiter: RateLimiter | undefined;
  log: Logger;
  metrics: ServiceMetrics;
}

/** JSON Schema for a zod schema as MCP clients expect it (an object, no `$schema`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest as Tool['inputSchema'];
}

export function describeTool(t: AnyTool): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: (t.inputJsonSchema as Tool['inputSchema'] | undefined) ?? jsonSchema(t.input, 'input'),
    outputSchema: jsonSchema(t.output, 'output'),
    annotations: { title: t.title, ...t.annotations },
    ...(t.meta ? { _meta: t.meta } : {}),
  };
}

/** Where a failed call's machine-readable error travels: the result's `_meta`. */
export const ERROR_META_KEY = 'lore/error';

/**
 * A failed call: the text a model reads, and `{code, message, data}` in `_meta`. Never
 * `structuredContent`: stock clients (SDK v1, the Inspector) check it against the tool's
 * output schema even when `isError` is set, and throw instead of showing the message.
 */
export function errorResult(err: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: `Error ${err.code}: ${err.message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: err.toBody() },
  };
}

/** The `{code, message, data}` of a failed call's result, from `_meta` (undefined when it succeeded). */
export function toolErrorOf(result: {
  isError?: boolean;
  _meta?: Record<string, unknown>;
}): ToolErrorBody | undefined {
  if (!result.isError) return undefined;
  return result._meta?.[ERROR_META_KEY] as ToolErrorBody | undefined;
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
      (cc, span) => run(tool, args, info, cc.traceparent, (code) => span.setAttribute('lore.code', code)),
    );
  }

  async function run(
    tool: AnyTool<P>,
    args: Record<string, unknown>,
    info: CallInfo,
    traceparent: string | undefined,
    done: (code: number) => void,
  ): Promise<CallToolResult | InputRequiredResult> {
    const name = tool.name;
    const t0 = performance.now();
    let code = 200;
    try {
      const caller = info.token ? await rt.auth.verify(info.token) : null;
      // A public tool (agent_register) ignores a key it cannot use: it is the way out of a lost or
      // revoked key, so a stale Authorization header must not lock the caller out of it.
      if (!caller && !tool.public)
        throw info.token
          ? unauthenticated('Invalid API key. Check the key, or get a new one with agent_register.')
          : unauthenticated();
      // Input is checked before it counts against a limit: malformed calls must not lock an agent out.
      // The schema speaks first, so a 400 names the same field whatever else is wrong with the call.
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) throw fromZodError(parsed.error, args);
      const control = controlCharacterError(args);
      if (control) throw control;
      const wait = (await rt.limiter?.take(caller?.id ?? `ip:${info.ip ?? 'local'}`, tool.rateClass)) ?? 0;
      if (wait)
        throw rateLimited(
          wait,
          `Rate limit for ${tool.rateClass} calls reached (${RATE_LIMITS[tool.rateClass as 'read']}/min); retry in ${wait} s.`,
        );
      let callLog: Logger | undefined;
      const ctx = makeContext<P>({
        caller,
        ports: opts.ports,
        get log() {
          callLog ??= rt.log.child({
            tool: name,
            requestId: info.requestId,
            ...(traceparent ? { traceparent } : {}),
          });
          return callLog;
        },
        get signal() {
          return info.signal;
        },
        requestId: info.requestId,
        sampling: info.sampling,
        elicitation: info.elicitation,
        progress: info.progress,
        notify: async (level, data) => info.notify?.(level, data),
      });
      const result = await tool.handler(parsed.data, ctx);
      const out = tool.output.safeParse(result.data);
      if (!out.success) {
        rt.log.error(
          { tool: name, issues: out.error.issues.slice(0, 3) },
          'tool output does not match its schema',
        );
        throw new ToolError(500, 'Internal error: the result did not match its declared shape.');
      }
      return {
        content: [{ type: 'text', text: result.text }, ...(result.content ?? [])],
        structuredContent: out.data as Record<string, unknown>,
      };
    } catch (err) {
      if (err instanceof InputRequiredSignal) throw err;
      const te = toToolError(err);
      code = te.code;
      if (te.code >= 500) rt.log.error({ err, tool: name, requestId: info.requestId }, 'tool failed');
      // The client hears the server's own warning about its call, when it asked for log messages.
      await info.notify?.(
        te.code >= 500 ? 'error' : 'warning',
        { tool: name, requestId: info.requestId, ...te.toBody() },
        { ifAsked: true },
      );
      return errorResult(te);
    } finally {
      done(code);
      rt.metrics.record(name, code, (performance.now() - t0) / 1000);
    }
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
