import { join } from 'node:path';
import { connectClient } from '@lore/kit/testing';
import {
  load,
  MCP_HEADERS,
  type Proc,
  ROOT,
  type Row,
  row,
  rssMiB,
  start,
  timeIt,
  toolsCallBody,
} from '../lib.js';

const users = join(ROOT, 'packages/users/src/main.ts');
const lore = join(ROOT, 'apps/aggregator/src/main.ts');

async function registerAgent(url: string, handle: string): Promise<string> {
  const c = await connectClient(undefined, { url });
  const r = (await c.callTool({
    name: 'agent_register',
    arguments: { username: handle, email: `${handle}@example.com`, displayName: handle },
  })) as {
    structuredContent: { apiKey: string };
  };
  await c.close();
  return r.structuredContent.apiKey;
}

/**
 * Protocol floor: a bare Hono echo vs one service's read-only tool called directly vs the same
 * tool through the all-in-one aggregator vs through the aggregator in distributed mode.
 */
export async function protocolSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const env = {
    LORE_RATE_LIMITS: 'false',
    LORE_LOG_LEVEL: 'info',
    NATS_URL: '',
    LORE_INGEST_OWN_DOCS: 'false',
  };
  const procs: Proc[] = [];
  const rows: Row[] = [];
  try {
    const echo = await start(join(ROOT, 'bench/targets/echo.ts'), [], {}, /listening (\S+)/);
    procs.push(echo);
    const direct = await start(
      users,
      [],
      { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(opts.dataDir, 'users') },
      /"url":"(http[^"]+)"/,
    );
    procs.push(direct);
    const allInOne = await start(
      lore,
      ['start'],
      { ...env, LORE_PORT: '0', LORE_DATA_DIR: join(opts.dataDir, 'aio') },
      /Lore is running at (\S+)/,
    );
    procs.push(allInOne);
    const distributed = await start(
      lore,
      ['start'],
      {
        ...env,
        LORE_PORT: '0',
        LORE_DATA_DIR: join(opts.dataDir, 'dist'),
        LORE_SERVICES: `users=${direct.url}`,
      },
      /Lore is running at (\S+)/,
    );
    procs.push(distributed);
    await new Promise((r) => setTimeout(r, 1000));
    rows.push(
      row({
        suite: 'memory',
        name: 'idle RSS, one service alone (users)',
        value: rssMiB(direct.pid),
        unit: 'MiB',
      }),
    );
    rows.push(
      row({
        suite: 'memory',
        name: 'idle RSS, all-in-one process',
        value: rssMiB(allInOne.pid),
        unit: 'MiB',
        baseline: { name: 'users alone', value: rssMiB(direct.pid) },
      }),
    );

    const keyDirect = await registerAgent(direct.url, 'bench_reader');
    const keyAio = await registerAgent(allInOne.url, 'bench_reader');
    const body = toolsCallBody('agent_profile', { username: 'bench_reader' });
    const targets = [
      { name: 'bare Hono echo', url: echo.url, headers: { 'content-type': 'application/json' } },
      {
        name: 'service direct',
        url: direct.url,
        headers: {
          ...MCP_HEADERS,
          'mcp-method': 'tools/call',
          'mcp-name': 'agent_profile',
          authorization: `Bearer ${keyDirect}`,
        },
      },
      {
        name: 'aggregator all-in-one',
        url: allInOne.url,
        headers: {
          ...MCP_HEADERS,
          'mcp-method': 'tools/call',
          'mcp-name': 'agent_profile',
          authorization: `Bearer ${keyAio}`,
        },
      },
      {
        name: 'aggregator distributed',
        url: distributed.url,
        headers: {
          ...MCP_HEADERS,
          'mcp-method': 'tools/call',
          'mcp-name': 'agent_profile',
          authorization: `Bearer ${keyDirect}`,
        },
      },
    ];
    // Warm up every path (JIT, caches) before measuring.
    for (const t of targets) await load(t.url, { connections: 10, seconds: 1, body, headers: t.headers });
    for (const connections of [10, 50]) {
      const results = new Map<string, Awaited<ReturnType<typeof load>>>();
      for (const t of targets)
        results.set(
          t.name,
          await load(t.url, { connections, seconds: opts.seconds, body, headers: t.headers }),
        );
      const echoR = results.get('bare Hono echo')!;
      const directR = results.get('service direct')!;
      for (const t of targets) {
        const r = results.get(t.name)!;
        const isAgg = t.name.startsWith('aggregator');
        rows.push(
          row({
            suite: 'protocol',
            name: `${t.name}, ${connections} conns: throughput`,
            value: r.rps,
            unit: 'req/s',
            ...(t.name === 'bare Hono echo' ? {} : { baseline: { name: 'bare echo', value: echoR.rps } }),
            ...(isAgg ? { target: '≥ 0.20 × echo', met: r.rps / echoR.rps >= 0.2 } : {}),
          }),
        );
        rows.push(
          row({
            suite: 'protocol',
            name: `${t.name}, ${connections} conns: p50`,
            value: r.p50,
            unit: 'ms',
            ...(isAgg
              ? {
                  baseline: { name: 'direct p50', value: directR.p50 },
                  target: '≤ 1.2 × direct',
                  met: r.p50 <= 1.2 * directR.p50,
                }
              : {}),
          }),
        );
        rows.push(
          row({ suite: 'protocol', name: `${t.name}, ${connections} conns: p99`, value: r.p99, unit: 'ms' }),
        );
        if (r.errors || r.non2xx)
          rows.push(
            row({
              suite: 'protocol',
              name: `${t.name}, ${connections} conns: errors`,
              value: r.errors + r.non2xx,
              unit: 'count',
            }),
          );
      }
    }

    // tools/list, sequential: what the aggregator adds to a catalog read.
    const listBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: JSON.parse(toolsCallBody('x', {})).params._meta },
    });
    const list = (url: string) => () =>
      fetch(url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-method': 'tools/list' },
        body: listBody,
      }).then((r) => r.text());
    const dl = await timeIt(500, list(direct.url));
    const al = await timeIt(500, list(allInOne.url));
    rows.push(row({ suite: 'protocol', name: 'tools/list direct: p50', value: dl.p50, unit: 'ms' }));
    rows.push(
      row({
        suite: 'protocol',
        name: 'tools/list via aggregator: p50',
        value: al.p50,
        unit: 'ms',
        baseline: { name: 'direct', value: dl.p50 },
      }),
    );
    rows.push(
      row({
        suite: 'memory',
        name: 'RSS after load, all-in-one process',
        value: rssMiB(allInOne.pid),
        unit: 'MiB',
      }),
    );
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
  return rows;
}
