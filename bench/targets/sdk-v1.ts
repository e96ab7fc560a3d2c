/**
 * An extra rung: a minimal equivalent of the SDK v1 reference server on `@modelcontextprotocol/sdk`
 * — sessions, one server and transport per session, but on bare node:http, JSON answers instead
 * of SSE, no event store, no logging, one trivial tool (`lookup`). It shows the SDK v1 floor; the
 * reference itself (server-everything, as published) is started from the protocol suite.
 * Prints `listening <url>`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const transports = new Map<string, StreamableHTTPServerTransport>();

function newSession() {
  const server = new McpServer({ name: 'reference-v1', version: '1.0.0' });
  server.registerTool(
    'lookup',
    {
      description: 'Echo a profile.',
      inputSchema: { username: z.string() },
      outputSchema: { username: z.string(), displayName: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ username }) => {
      const data = { username, displayName: username };
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (id) => {
      transports.set(id, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) transports.delete(transport.sessionId);
  };
  return server.connect(transport).then(() => transport);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

const http = createServer(async (req, res) => {
  try {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'];
    const transport = typeof id === 'string' ? transports.get(id) : await newSession();
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
});
http.listen(0, '127.0.0.1', () => {
  const a = http.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${a.port}/mcp\n`);
});
