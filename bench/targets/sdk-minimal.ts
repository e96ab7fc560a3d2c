/**
 * Baseline: the smallest server on the same MCP SDK v2 + Hono that Lore runs on. One trivial
 * tool (`lookup`, echoes a username), stateless, a server per request, as the SDK's own
 * examples build it. Prints `listening <url>`.
 */
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { z } from 'zod';

const input = z.object({ username: z.string() });
const output = z.object({ username: z.string(), displayName: z.string() });

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool(
    'lookup',
    {
      description: 'Echo a profile.',
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true },
    },
    async ({ username }) => {
      const data = { username, displayName: username };
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  return server;
});

const app = new Hono();
app.all('/mcp', (c) => handler.fetch(c.req.raw));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`listening http://127.0.0.1:${info.port}/mcp\n`);
});
