import { createServer, request as httpRequest, type Server } from 'node:http';

export interface RoundRobinProxy {
  url: string;
  server: Server;
  /** Requests sent to each target, in the order of `targets`. */
  hits: number[];
  /** The targets (base URLs); replace them to add or remove a replica while it runs. */
  targets: string[];
  close(): Promise<void>;
}

/**
 * A round-robin HTTP proxy on loopback, as a Kubernetes Service spreads requests over a
 * Deployment's pods: each request goes to the next target, with no affinity.
 */
export function roundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const proxy = { hits: targets.map(() => 0), targets: [...targets] } as RoundRobinProxy;
  const server = createServer((req, res) => {
    const i = next++ % proxy.targets.length;
    proxy.hits[i] = (proxy.hits[i] ?? 0) + 1;
    const target = new URL(req.url ?? '/', proxy.targets[i]);
    const up = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  proxy.server = server;
  proxy.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      // Clients keep their connections alive; a proxy that closes ends them.
      server.closeAllConnections();
    });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address() as { port: number };
      proxy.url = `http://127.0.0.1:${a.port}`;
      resolve(proxy);
    }),
  );
}
