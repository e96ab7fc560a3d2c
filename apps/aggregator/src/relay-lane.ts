import type { ServerResponse } from 'node:http';
import {
  callerOf,
  type InterceptAnswer,
  type InterceptedRequest,
  type Lane,
  type LoreConfig,
  NOT_JSON,
  nodeGoneHook,
  parseCallBody,
  TOO_DEEP,
  trustedProxies,
} from '@lore/kit';
import { MODERN_PROTOCOL_REVISION } from '@lore/schema';
import { isJsonContentType } from '@modelcontextprotocol/server';

export interface RelayLaneOptions {
  config: Pick<LoreConfig, 'LORE_TRUSTED_PROXIES' | 'LORE_MAX_BODY_BYTES' | 'LORE_MAX_JSON_DEPTH'>;
  /** The relay (the same the endpoint is given as its `intercept`). */
  relay: (call: InterceptedRequest) => Promise<InterceptAnswer | undefined>;
  /** Whether a tools/call of this tool (its Mcp-Name) is one the relay answers. */
  takes: (tool: string) => boolean;
}

/**
 * The distributed aggregator's `tools/call`s, relayed without Hono and without web Request and
 * Response objects: on a 2026-07-28 `tools/call` whose standard headers name a tool the relay
 * answers (no session, a JSON body of declared length within the limit, no header given twice),
 * the body is read and parsed here, the caller taken from the request as the endpoint takes it
 * (key, request id, trace context, client address past trusted proxies only), and the relay's
 * answer written to the socket. Anything else is left to the app before its body is read; a
 * body that turns out not to be what the headers said (too deep, not JSON, another tool, not a
 * tools/call) is handed to the app as it came, which answers it as it answers every request.
 */
export function relayLane(opts: RelayLaneOptions): Lane {
  const proxies = trustedProxies(opts.config.LORE_TRUSTED_PROXIES);
  const maxBody = opts.config.LORE_MAX_BODY_BYTES;
  const maxDepth = opts.config.LORE_MAX_JSON_DEPTH;
  return (incoming, outgoing, app) => {
    if (incoming.method !== 'POST' || incoming.url !== '/mcp') return false;
    const h = incoming.headers;
    if (
      h['mcp-session-id'] !== undefined ||
      header(h['mcp-protocol-version'])?.trim() !== MODERN_PROTOCOL_REVISION
    )
      return false;
    if (header(h['mcp-method'])?.trim() !== 'tools/call') return false;
    const tool = header(h['mcp-name'])?.trim();
    if (!tool || tool.startsWith('=?') || !opts.takes(tool)) return false;
    if (!isJsonContentType(h['content-type'])) return false;
    const length = Number(h['content-length']);
    if (!(length > 0 && length <= maxBody)) return false;
    // A header given twice is read differently by Node and by the web Headers: the app decides.
    if (repeated(incoming.rawHeaders)) return false;
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      answer(raw).catch((err) => fail(outgoing, err));
    });
    incoming.once('error', (err) => fail(outgoing, err));
    return true;

    async function answer(raw: Buffer): Promise<void> {
      const text = raw.toString('utf8');
      // Steps 2 and 3 of every call (the kit's pipeline.ts), as the endpoint takes them.
      const parsed = parseCallBody(text, maxDepth);
      const body = parsed === TOO_DEEP || parsed === NOT_JSON ? undefined : parsed;
      const params = (body as { params?: { name?: unknown } } | undefined)?.params;
      if (!params || typeof params !== 'object' || params.name !== tool) return handOn(raw);
      const { token, extra } = callerOf((name) => header(h[name]), incoming.socket.remoteAddress, proxies);
      let abort: AbortController | undefined;
      const relayed = await opts.relay({
        body,
        text,
        headers: { get: (name: string) => header(h[name.toLowerCase()]) ?? null },
        token,
        extra,
        get signal() {
          if (!abort) {
            const controller = new AbortController();
            abort = controller;
            nodeGoneHook(outgoing)((reason) => controller.abort(reason));
          }
          return abort.signal;
        },
        whenGone: nodeGoneHook(outgoing),
      });
      if (!relayed) return handOn(raw);
      write(outgoing, relayed.status, relayed.headers, relayed.body);
    }

    /** The request as it came, to the app. */
    async function handOn(raw: Buffer): Promise<void> {
      const headers = new Headers();
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
        headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      const res = await app(
        new Request(`http://${h.host ?? 'localhost'}${incoming.url}`, {
          method: 'POST',
          headers,
          body: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) as Uint8Array<ArrayBuffer>,
        }),
      );
      const out: Record<string, string | string[]> = {};
      res.headers.forEach((value, key) => {
        if (key !== 'set-cookie') out[key] = value;
      });
      const cookies = res.headers.getSetCookie();
      if (cookies.length) out['set-cookie'] = cookies;
      write(outgoing, res.status, out, res.body);
    }
  };
}

/** A header's value as the web Headers would give it (a list joined), from Node's parsed headers. */
function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Whether any header name appears twice (raw names, any case). */
function repeated(raw: string[]): boolean {
  if (raw.length <= 2) return false;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}

function write(
  outgoing: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: string | Uint8Array | ReadableStream<Uint8Array> | null,
): void {
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    headers['content-length'] = String(length);
    outgoing.writeHead(status, headers);
    outgoing.end(body ?? undefined);
    return;
  }
  outgoing.writeHead(status, headers);
  outgoing.flushHeaders();
  void pump(body.getReader(), outgoing);
}

/** A web stream onto the socket as it comes, waiting while the socket is full; cancelled if the client goes. */
async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  outgoing: ServerResponse,
): Promise<void> {
  const gone = () => void reader.cancel().catch(() => {});
  outgoing.once('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!outgoing.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            outgoing.removeListener('drain', go);
            outgoing.removeListener('close', go);
            resolve();
          };
          outgoing.once('drain', go);
          outgoing.once('close', go);
        });
      if (outgoing.destroyed) return;
    }
    outgoing.end();
  } catch {
    outgoing.destroy();
  } finally {
    outgoing.removeListener('close', gone);
  }
}

/** What Hono answers for an error thrown while answering: a 500, or nothing to a client that left. */
function fail(outgoing: ServerResponse, _err: unknown): void {
  if (outgoing.headersSent || outgoing.destroyed) {
    outgoing.destroy();
    return;
  }
  outgoing.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8' });
  outgoing.end('Internal Server Error');
}
