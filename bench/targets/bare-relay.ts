/**
 * The floor of a relay on this machine: node:http in, an undici keep-alive Pool out, the request's
 * body and headers passed on as they came and the answer's bytes sent back, with nothing checked,
 * parsed or renamed. Not a Lore component: `bench/tools/relay-floor.ts` measures Lore's
 * distributed aggregator against it.
 *
 *   node --import tsx bench/targets/bare-relay.ts <upstream url>
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.argv[2]!);
const pool = new Pool(upstream.origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
const path = upstream.pathname;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    pool
      .request({ method: 'POST', path, headers, body: Buffer.concat(chunks) })
      .then(async (r) => {
        const body = Buffer.from(await r.body.arrayBuffer());
        res.writeHead(r.statusCode, {
          'content-type': String(r.headers['content-type'] ?? 'application/json'),
          'content-length': body.length,
        });
        res.end(body);
      })
      .catch((err: Error) => {
        res.writeHead(502).end(err.message);
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${a.port}/mcp\n`);
});
