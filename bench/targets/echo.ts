/** The protocol floor: a bare Hono app answering JSON. */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.post('/echo', async (c) => c.json({ jsonrpc: '2.0', id: 1, result: await c.req.json() }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`listening http://127.0.0.1:${info.port}/echo\n`);
});
