import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  inputRequired,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { SamplingPort } from './textgen/types.js';

/** Everything about one tools/call that is not the arguments. */
export interface CallInfo {
  /** The bearer token the client sent, if any. */
  token: string | null;
  era: 'legacy' | 'modern';
  requestId: string;
  signal: AbortSignal;
  ip?: string;
  traceparent?: string;
  /** The calling client's model, when it offers sampling in this era. */
  sampling: SamplingPort | undefined;
  /** Responses to input requests from an earlier round (2026-07-28 multi-round-trip). */
  inputResponses?: Record<string, unknown>;
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Request `_meta` as the client sent it (progress token, trace context). */
  meta?: Record<string, unknown>;
}

/** What an MCP endpoint serves: a service's own tools, or the aggregator's union. */
export interface McpBackend {
  info: { name: string; version: string; title?: string };
  instructions?: string;
  listTools(): Tool[];
  callTool(name: string, args: Record<string, unknown>, call: CallInfo): Promise<CallToolResult>;
  /** Called when the tool list may have changed, to tell session clients. */
  onToolsChanged?(listener: () => void): () => void;
}

/** Thrown by a sampling port on the 2026-07-28 path: the call ends with an input request. */
export class InputRequiredSignal extends Error {
  constructor(readonly request: Parameters<SamplingPort['createMessage']>[0]) {
    super('input required: sampling');
    this.name = 'InputRequiredSignal';
  }
}

export const SAMPLING_KEY = 'lore_sampling';

export interface AuthExtra {
  requestId?: string;
  ip?: string;
  traceparent?: string;
}

/**
 * One server instance per exchange (that is what the stateless 2026-07-28 protocol and the
 * stateless 2025 fallback both need), so construction must stay cheap: the tool list is
 * built once by the backend and handed over as is.
 */
export function createMcpFactory(backend: McpBackend): McpServerFactory {
  return ({ era, authInfo }) => {
    const server = new Server(backend.info, {
      capabilities: { tools: { listChanged: true } },
      ...(backend.instructions ? { instructions: backend.instructions } : {}),
    });
    server.setRequestHandler('tools/list', async () => ({ tools: backend.listTools() }));
    server.setRequestHandler('tools/call', async (req, ctx) => {
      const extra = (authInfo?.extra ?? {}) as AuthExtra;
      const info: CallInfo = {
        token: authInfo?.token || null,
        era,
        requestId: extra.requestId ?? randomUUID(),
        signal: ctx.mcpReq.signal,
        sampling: samplingPort(server, era, ctx),
        progress: progressReporter(ctx),
        ...(extra.ip ? { ip: extra.ip } : {}),
        ...(extra.traceparent ? { traceparent: extra.traceparent } : {}),
        ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
        ...(ctx.mcpReq._meta ? { meta: ctx.mcpReq._meta as Record<string, unknown> } : {}),
      };
      try {
        return await backend.callTool(
          req.params.name,
          (req.params.arguments ?? {}) as Record<string, unknown>,
          info,
        );
      } catch (err) {
        if (err instanceof InputRequiredSignal) {
          return inputRequired({
            inputRequests: { [SAMPLING_KEY]: inputRequired.createMessage(err.request as never) },
          }) as never;
        }
        throw err;
      }
    });
    return server;
  };
}

export const unknownTool = (name: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, { tool: name });

function progressReporter(ctx: ServerContext): CallInfo['progress'] {
  const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  if (token === undefined) return async () => {};
  return async (progress, total, message) => {
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message ? { message } : {}),
      },
    });
  };
}

function samplingPort(
  server: Server,
  era: 'legacy' | 'modern',
  ctx: ServerContext,
): SamplingPort | undefined {
  if (!server.getClientCapabilities()?.sampling) return undefined;
  if (era === 'legacy') {
    return {
      async createMessage(params) {
        const r = await ctx.mcpReq.requestSampling({ ...params, includeContext: 'none' } as never);
        return samplingText(r);
      },
    };
  }
  const answered = ctx.mcpReq.inputResponses?.[SAMPLING_KEY];
  return {
    async createMessage(params) {
      if (answered !== undefined) return samplingText(answered);
      throw new InputRequiredSignal(params);
    },
  };
}

function samplingText(result: unknown): string {
  const content = (result as { content?: unknown })?.content;
  const blocks = Array.isArray(content) ? content : [content];
  const text = blocks
    .map((b) =>
      b && typeof b === 'object' && (b as { type?: string }).type === 'text'
        ? (b as { text: string }).text
        : '',
    )
    .join('');
  if (!text) throw new Error('the client returned no text from sampling');
  return text;
}
