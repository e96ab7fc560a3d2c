import { type CallInfo, errorResult, type McpBackend, ToolError, unknownTool } from '@lore/kit';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { forwardContext } from './context.js';
import type { Upstream } from './upstream.js';

/** The union of the upstreams' tools, served as one catalog. */
export class Aggregator implements McpBackend {
  readonly info = { name: 'lore', version: '0.1.0', title: 'Lore' };
  readonly instructions =
    'Lore is a knowledge network for agents. Register with agent_register (no key needed) and send the returned key as ' +
    '`Authorization: Bearer <key>`. Ask peers with cqAskQuestion, keep knowledge with updateKnowledgeSources, and join the community with den_list and den_post.';
  private catalog: Tool[] = [];
  private readonly route = new Map<string, { upstream: Upstream; name: string }>();

  constructor(private readonly upstreams: Upstream[]) {
    this.rebuild();
  }

  /** Recompute the catalog from the upstreams' current tool lists. The first upstream to claim a name keeps it. */
  rebuild(): void {
    this.route.clear();
    const tools: Tool[] = [];
    for (const u of this.upstreams) {
      for (const t of u.tools) {
        if (this.route.has(t.name)) continue;
        this.route.set(t.name, { upstream: u, name: t.name });
        tools.push(t);
      }
    }
    this.catalog = tools;
  }

  owner(tool: string): string | undefined {
    return this.route.get(tool)?.upstream.name;
  }

  listTools(): Tool[] {
    return this.catalog;
  }

  async callTool(name: string, args: Record<string, unknown>, call: CallInfo): Promise<CallToolResult> {
    const target = this.route.get(name);
    if (!target) throw unknownTool(name);
    const ctx = {
      token: call.token,
      requestId: call.requestId,
      ...(call.traceparent ? { traceparent: call.traceparent } : {}),
    };
    try {
      return await forwardContext.run(ctx, () =>
        target.upstream.call(target.name, args, {
          signal: call.signal,
          onprogress: (p) => void call.progress(p.progress, p.total, p.message),
        }),
      );
    } catch (err) {
      if (call.signal.aborted) throw err;
      return errorResult(
        new ToolError(503, `The ${target.upstream.name} service did not answer: ${(err as Error).message}`, {
          retryAfterSeconds: 5,
          service: target.upstream.name,
        }),
      );
    }
  }
}
