import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type McpServerFactory,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { subscribedTo } from './mcp.js';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** The client address that opened it ('' when unknown, e.g. in-process). */
  address: string;
}

export interface LegacySessionOptions {
  /** Sessions idle longer than this are closed. Default 30 minutes. */
  idleMs?: number;
  /** At most this many open sessions; the oldest idle one makes room. Default 1,000. */
  max?: number;
  /**
   * At most this many open sessions per client address; a new one from that address closes
   * its own oldest, so no one address can push everyone else's sessions out. Default 20.
   */
  maxPerAddress?: number;
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

  async handle(request: Request, authInfo: AuthInfo, parsedBody?: unknown, address = ''): Promise<Response> {
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
    this.makeRoom(address);
    const server = (await this.factory({ era: 'legacy', authInfo, requestInfo: request })) as Server;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { transport, server, lastSeen: Date.now(), address });
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

  /** Tell the sessions that subscribed to a resource that it changed. */
  resourceUpdated(uri: string): void {
    for (const s of this.sessions.values())
      if (subscribedTo(s.server, uri)) void s.server.sendResourceUpdated({ uri }).catch(() => {});
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

  private makeRoom(address: string) {
    const perAddress = this.opts.maxPerAddress ?? 20;
    const own = [...this.sessions].filter(([, s]) => s.address === address);
    if (address && own.length >= perAddress) return this.evict(own);
    if (this.sessions.size >= (this.opts.max ?? 1000)) this.evict([...this.sessions]);
  }

  private evict(candidates: Array<[string, Session]>) {
    const oldest = candidates.sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
    if (oldest) {
      this.sessions.delete(oldest[0]);
      void oldest[1].transport.close().catch(() => {});
    }
  }
}
