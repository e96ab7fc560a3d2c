import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { identityFetch } from './context.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface UpstreamOptions {
  name: string;
  url: string;
  /** In-process services pass their app's fetch: no sockets. */
  fetch?: Fetch;
  /** Lore's own services get the caller's identity; external servers do not. */
  forwardIdentity: boolean;
  timeoutMs?: number;
}

/** One MCP server behind the aggregator, reached through the MCP client. */
export class Upstream {
  readonly name: string;
  tools: Tool[] = [];
  private client: Client | undefined;

  constructor(private readonly opts: UpstreamOptions) {
    this.name = opts.name;
  }

  async connect(): Promise<void> {
    const base: Fetch = this.opts.fetch ?? ((u, i) => fetch(u, i));
    const client = new Client(
      { name: 'lore-aggregator', version: '0.1.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(this.opts.url), {
      fetch: this.opts.forwardIdentity ? identityFetch(base) : base,
    });
    await client.connect(transport);
    this.client = client;
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.requireClient().listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
    },
  ): Promise<CallToolResult> {
    return (await this.requireClient().callTool(
      { name, arguments: args },
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress ? { onprogress: options.onprogress, resetTimeoutOnProgress: true } : {}),
        timeout: this.opts.timeoutMs ?? 60_000,
      },
    )) as CallToolResult;
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }

  private requireClient(): Client {
    if (!this.client) throw new Error(`upstream ${this.name} is not connected`);
    return this.client;
  }
}
