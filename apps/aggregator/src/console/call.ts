import { randomUUID } from 'node:crypto';
import type { McpBackend } from '@lore/kit';
import type { CallToolResult } from '@modelcontextprotocol/server';

/** A tool refused or failed: the code and message the tool gave, shown to the owner as is. */
export class ConsoleToolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleToolError';
  }
}

export interface ToolOutcome<T> {
  text: string;
  data: T;
}

/**
 * Calls a tool of the catalog as the signed-in agent: the same backend `/mcp` uses, with the
 * agent's key as identity, so every decision goes through the tool's own checks and is logged
 * as that agent's.
 */
export async function callAs<T = Record<string, unknown>>(
  backend: McpBackend,
  key: string,
  tool: string,
  args: Record<string, unknown> = {},
  signal: AbortSignal = AbortSignal.timeout(60_000),
  onProgress?: (progress: number, total?: number, message?: string) => void,
): Promise<ToolOutcome<T>> {
  const result = await backend.callTool(tool, args, {
    token: key,
    era: 'modern',
    requestId: randomUUID(),
    signal,
    // The console has no model to lend: tools fall back to their extractive strategy.
    sampling: undefined,
    progress: async (progress, total, message) => onProgress?.(progress, total, message),
  });
  if (!('content' in result))
    throw new ConsoleToolError(501, `${tool} asked for input the console cannot give.`);
  const r = result as CallToolResult;
  const text = r.content
    .map((c) => (c.type === 'text' ? c.text : ''))
    .join('\n')
    .trim();
  if (r.isError) {
    const meta = (r._meta?.['lore/error'] ?? (r.structuredContent as { error?: unknown })?.error) as
      | { code?: number; message?: string }
      | undefined;
    const m = /^Error (\d{3}): ([\s\S]*)$/.exec(text);
    throw new ConsoleToolError(
      meta?.code ?? (m ? Number(m[1]) : 500),
      meta?.message ?? (m ? m[2]! : text || `${tool} failed`),
    );
  }
  return { text, data: (r.structuredContent ?? {}) as T };
}

/** Whether the catalog currently serves a tool (a service may be down or not deployed). */
export function hasTool(backend: McpBackend, name: string): boolean {
  return backend.listTools().some((t) => t.name === name);
}
