import { join } from 'node:path';
import {
  connectClient,
  NatsAuthFixture,
  NatsCluster,
  nodeIdentityFile,
  ok,
  type RoundRobinProxy,
  roundRobinProxy,
  SqldProcess,
  shareNodeIdentity,
} from '@lore/kit/testing';
import { load, MCP_HEADERS, type Proc, ROOT, type Row, row, rssMiB, start, toolsCallBody } from '../lib.js';

const USERS = join(ROOT, 'packages/users/src/main.ts');
const LORE = join(ROOT, 'apps/aggregator/src/main.ts');
/** Modest: on sqld every statement is an HTTP round trip, and a 2-core machine queues them. */
const CONNECTIONS = 10;

/**
 * One users process alone, one call at a time, on each engine: what sqld and the NATS cluster
 * cost a tool call, against a file database with an in-process bus in the same run.
 */
async function engineRows(
  dataDir: string,
  sqld: SqldProcess,
  cluster: NatsCluster,
  auth: NatsAuthFixture,
): Promise<Row[]> {
  const engines: Array<{ name: string; env: Record<string, string> }> = [
    { name: 'file, in-process bus', env: { NATS_URL: '' } },
    { name: 'sqld, in-process bus', env: { NATS_URL: '', LORE_USERS_DB_URL: sqld.url } },
    {
      name: 'sqld, NATS cluster R3',
      env: {
        NATS_URL: cluster.url,
        ...auth.env('users'),
        LORE_NATS_REPLICAS: '3',
        LORE_USERS_DB_URL: sqld.url,
      },
    },
  ];
  const rows: Row[] = [];
  let base: { profile: number; update: number } | undefined;
  for (const [i, e] of engines.entries()) {
    const p = await start(
      USERS,
      [],
      {
        ...e.env,
        LORE_PORT: '0',
        LORE_RATE_LIMITS: 'false',
        LORE_NODE_ID: 'bench-engines',
        LORE_DATA_DIR: join(dataDir, `engine${i}`),
      },
      /"url":"(http[^"]+)"/,
    );
    try {
      const handle = `bench_engine_${i}`;
      const anon = await connectClient(undefined, { url: p.url });
      const key = (
        await ok<{ apiKey: string }>(anon, 'agent_register', {
          username: handle,
          email: `${handle}@example.com`,
          displayName: handle,
        })
      ).data.apiKey;
      const c = await connectClient(undefined, { url: p.url, key });
      const p50 = async (fn: () => Promise<unknown>) => {
        const times: number[] = [];
        for (let n = 0; n < 21; n++) {
          const t = performance.now();
          await fn();
          times.push(performance.now() - t);
        }
        return times.sort((x, y) => x - y)[10]!;
      };
      const profile = await p50(() => ok(c, 'agent_profile', { username: handle }));
      const update = await p50(() => ok(c, 'agent_update', { bio: 'measured' }));
      base ??= { profile, update };
      rows.push(
        row({
          suite: 'scale',
          name: `users alone on ${e.name}: agent_profile p50`,
          value: profile,
          unit: 'ms',
          ...(i ? { baseline: { name: 'file', value: base.profile } } : {}),
        }),
        row({
          suite: 'scale',
          name: `users alone on ${e.name}: agent_update p50`,
          value: update,
          unit: 'ms',
          ...(i ? { baseline: { name: 'file', value: base.update } } : {}),
        }),
      );
      await c.close();
      await anon.close();
    } finally {
      await p.stop();
    }
  }
  return rows;
}

/**
 * Replicas on the production engines: the aggregator (distributed mode) and the users service,
 * each behind a round-robin proxy on loopback (a Kubernetes Service), users' database on one
 * sqld, every process on one three-server JetStream cluster (R3). The same load runs against one
 * replica of each, then two; figures are ratios of two replicas to one. A read (agent_profile)
 * and a write (agent_update: a transaction on sqld and an event through the outbox).
 */
export async function scaleSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const rows: Row[] = [];
  const procs: Proc[] = [];
  const proxies: RoundRobinProxy[] = [];
  const sqld = new SqldProcess(join(opts.dataDir, 'sqld'));
  let cluster: NatsCluster | undefined;
  try {
    const auth = new NatsAuthFixture({ nodes: ['bench-engines', 'bench-scale'], dir: opts.dataDir });
    [cluster] = await Promise.all([NatsCluster.start(join(opts.dataDir, 'nats'), { auth }), sqld.start()]);
    rows.push(...(await engineRows(opts.dataDir, sqld, cluster, auth)));
    // The replicas are processes of one node: they share its identity.
    const identity = nodeIdentityFile(join(opts.dataDir, 'identity'), 'bench-scale');
    const env = {
      NATS_URL: cluster.url,
      ...auth.env('users'),
      LORE_NATS_REPLICAS: '3',
      LORE_NODE_ID: 'bench-scale',
      LORE_RATE_LIMITS: 'false',
      LORE_LOG_LEVEL: 'info',
      LORE_INGEST_OWN_DOCS: 'false',
      LORE_PORT: '0',
      LORE_USERS_DB_URL: sqld.url,
    };
    const startUsers = async (n: number) => {
      const p = await start(
        USERS,
        [],
        { ...env, LORE_DATA_DIR: shareNodeIdentity(identity, join(opts.dataDir, `users${n}`)) },
        /"url":"(http[^"]+)"/,
      );
      procs.push(p);
      return p;
    };
    const users1 = await startUsers(1);
    const usersProxy = await roundRobinProxy([users1.url.replace(/\/mcp$/, '')]);
    proxies.push(usersProxy);
    const startAgg = async (n: number) => {
      const p = await start(
        LORE,
        ['start'],
        {
          ...env,
          // The aggregator's own NATS user (the console's sessions and query events), not the users service's.
          ...auth.env('aggregator'),
          LORE_DATA_DIR: join(opts.dataDir, `agg${n}`),
          LORE_SERVICES: `users=${usersProxy.url}/mcp`,
        },
        /Lore is running at (\S+)/,
      );
      procs.push(p);
      return p;
    };
    const agg1 = await startAgg(1);
    const aggProxy = await roundRobinProxy([agg1.url.replace(/\/mcp$/, '')]);
    proxies.push(aggProxy);

    const anon = await connectClient(undefined, { url: `${aggProxy.url}/mcp` });
    const key = (
      await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: 'bench_scale',
        email: 'bench_scale@example.com',
        displayName: 'bench_scale',
      })
    ).data.apiKey;
    await anon.close();
    const headers = (tool: string) => ({
      ...MCP_HEADERS,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
      authorization: `Bearer ${key}`,
    });
    const workloads = [
      {
        name: 'read (agent_profile)',
        tool: 'agent_profile',
        body: toolsCallBody('agent_profile', { username: 'bench_scale' }),
      },
      {
        name: 'write (agent_update)',
        tool: 'agent_update',
        body: toolsCallBody('agent_update', { bio: 'scaling out' }),
      },
    ];
    const measure = async () => {
      const out = new Map<string, Awaited<ReturnType<typeof load>>>();
      for (const w of workloads) {
        await load(`${aggProxy.url}/mcp`, {
          connections: 10,
          seconds: 1,
          body: w.body,
          headers: headers(w.tool),
        });
        out.set(
          w.name,
          await load(`${aggProxy.url}/mcp`, {
            connections: CONNECTIONS,
            seconds: opts.seconds,
            body: w.body,
            headers: headers(w.tool),
          }),
        );
      }
      return out;
    };

    /** One call at a time: what a single statement round trip to sqld adds up to in a tool call. */
    const sequential = async (url = `${aggProxy.url}/mcp`) => {
      const c = await connectClient(undefined, { url, key });
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await ok(c, 'agent_profile', { username: 'bench_scale' });
        times.push(performance.now() - t);
      }
      await c.close();
      return times.sort((x, y) => x - y)[10]!;
    };
    rows.push(
      row({
        suite: 'scale',
        name: 'agent_profile, one call at a time, 1 replica: p50',
        value: await sequential(),
        unit: 'ms',
      }),
    );
    rows.push(
      row({
        suite: 'scale',
        name: 'agent_profile, one call at a time, users replica direct: p50',
        value: await sequential(users1.url),
        unit: 'ms',
      }),
    );
    const one = await measure();
    const users2 = await startUsers(2);
    const agg2 = await startAgg(2);
    usersProxy.targets.push(users2.url.replace(/\/mcp$/, ''));
    aggProxy.targets.push(agg2.url.replace(/\/mcp$/, ''));
    const two = await measure();

    for (const w of workloads) {
      const a = one.get(w.name)!;
      const b = two.get(w.name)!;
      rows.push(
        row({ suite: 'scale', name: `${w.name}, 1 replica: throughput`, value: a.rps, unit: 'req/s' }),
      );
      rows.push(
        row({
          suite: 'scale',
          name: `${w.name}, 2 replicas: throughput`,
          value: b.rps,
          unit: 'req/s',
          baseline: { name: '1 replica', value: a.rps },
          target: '≥ 1 × one replica',
          met: b.rps >= a.rps,
        }),
      );
      rows.push(row({ suite: 'scale', name: `${w.name}, 1 replica: p99`, value: a.p99, unit: 'ms' }));
      rows.push(
        row({
          suite: 'scale',
          name: `${w.name}, 2 replicas: p99`,
          value: b.p99,
          unit: 'ms',
          baseline: { name: '1 replica', value: a.p99 },
        }),
      );
      for (const [label, r] of [
        ['1 replica', a],
        ['2 replicas', b],
      ] as const)
        if (r.errors || r.non2xx)
          rows.push(
            row({
              suite: 'scale',
              name: `${w.name}, ${label}: errors`,
              value: r.errors + r.non2xx,
              unit: 'count',
            }),
          );
    }
    // The footprint the Kubernetes requests are sized from, after the load.
    rows.push(
      row({ suite: 'scale', name: 'RSS after load, users replica', value: rssMiB(users1.pid), unit: 'MiB' }),
    );
    rows.push(
      row({
        suite: 'scale',
        name: 'RSS after load, aggregator replica',
        value: rssMiB(agg1.pid),
        unit: 'MiB',
      }),
    );
    const sqldPid = sqld.pid;
    if (sqldPid)
      rows.push(row({ suite: 'scale', name: 'RSS after load, sqld', value: rssMiB(sqldPid), unit: 'MiB' }));
    return rows;
  } finally {
    for (const p of proxies) await p.close();
    for (const p of procs.reverse()) await p.stop();
    await cluster?.stop();
    await sqld.kill('SIGTERM');
  }
}
