import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type McpServerFactory,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

export interface LegacySessionOptions {
  /** Sessions idle longer than this are closed. Default 30 minutes. */
  idleMs?: number;
  /** At most this many open sessions; the oldest idle one makes room. Default 1,000. */
  max?: number;
  maxRequestBodySize?: number;
}

/**
 * Sessionful serving for 2025-11-25 clients: what lets the server push requests to the client
 * (sampling) and notify it of catalog changes. Sessions live in this process, so replicas
 * need affinity on `Mcp-Session-Id` for these clients (2026-07-28 clients need none).
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly opts: LegacySessionOptions = {},
  ) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, authInfo: AuthInfo, parsedBody?: unknown): Promise<Response> {
    const options = parsedBody === undefined ? { authInfo } : { authInfo, parsedBody };
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const s = this.sessions.get(id);
      if (!s) {
        return Response.json(
          {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32001, message: 'Session not found; initialize again' },
          },
          { status: 404 },
        );
      }
      s.lastSeen = Date.now();
      return s.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST') {
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Mcp-Session-Id header required' } },
        { status: 400 },
      );
    }
    this.makeRoom();
    const server = (await this.factory({ era: 'legacy', authInfo, requestInfo: request })) as Server;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { transport, server, lastSeen: Date.now() });
      },
      onsessionclosed: (sid) => {
        this.sessions.delete(sid);
      },
      ...(this.opts.maxRequestBodySize ? { maxRequestBodySize: this.opts.maxRequestBodySize } : {}),
    });
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  /** Tell every open session that the tool list changed. */
  toolsChanged(): void {
    for (const s of this.sessions.values()) void s.server.sendToolListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const [id, s] of this.sessions) {
      this.sessions.delete(id);
      await s.transport.close().catch(() => {});
    }
  }

  private sweep() {
    const cutoff = Date.now() - (this.opts.idleMs ?? 30 * 60_000);
    for (const [id, s] of this.sessions) {
      if (s.lastSeen < cutoff) {
        this.sessions.delete(id);
        void s.transport.close().catch(() => {});
      }
    }
  }

  private makeRoom() {
    const max = this.opts.max ?? 1000;
    if (this.sessions.size < max) return;
    const oldest = [...this.sessions].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
    if (oldest) {
      this.sessions.delete(oldest[0]);
      void oldest[1].transport.close().catch(() => {});
    }
  }
}
