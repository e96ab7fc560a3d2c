/**
 * A hostile participant on Lore's NATS: a real nats-server with the shipped users and
 * permissions (infra/nats), the users, queries, approvals and knowledge services as separate
 * processes of one node, and an attacker holding, in turn, no credentials, a wrong password and
 * another service's credentials. Every attempt is expected to fail; the figure reported is how
 * many got through (0).
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  EnvelopeSigner,
  type LoreConfig,
  loadNodeIdentity,
  REQUEST_SIGNATURE_HEADER,
  RequestSigner,
} from '@lore/kit';
import { freePort, NatsAuthFixture, NatsServerProcess, tempDir } from '@lore/kit/testing';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';
import { BASE_ENV } from './support.js';

const NODE = 'hostile-test';
const SERVICES = ['users', 'queries', 'approvals', 'knowledge'] as const;

describe('a hostile participant on the shipped NATS configuration', () => {
  const dir = tempDir('lore-hostile-');
  const auth = new NatsAuthFixture({ nodes: [NODE], dir: dir.path });
  let nats: NatsServerProcess;
  const procs = new Map<string, Spawned>();
  const conns: NatsConnection[] = [];
  /** Attempts that succeeded although they should not have. */
  const gotThrough: string[] = [];
  const attempts: string[] = [];

  const as = async (user: string) => {
    const nc = await connect({ servers: nats.url, ...auth.client(user), maxReconnectAttempts: 0 });
    conns.push(nc);
    return nc;
  };
  /** Runs an attempt that must be refused; a success is recorded as having got through. */
  const refused = async (what: string, attempt: () => Promise<unknown>) => {
    attempts.push(what);
    try {
      await attempt();
      gotThrough.push(what);
    } catch {
      // refused, as it should be
    }
  };

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable())
      throw new Error('nats-server is required for the hostile tests');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    await nats.start();
    // Every process of the node shares the node's identity, as in production.
    const identity = join(dir.path, 'node.json');
    loadNodeIdentity({ LORE_DATA_DIR: dir.path, LORE_NODE_ID: NODE } as LoreConfig);
    for (const s of SERVICES) {
      mkdirSync(join(dir.path, s), { recursive: true });
      copyFileSync(identity, join(dir.path, s, 'node.json'));
    }
    const start = (s: string) =>
      spawnTs(
        join(ROOT, `packages/${s}/src/main.ts`),
        [],
        {
          ...BASE_ENV,
          NATS_URL: nats.url,
          ...auth.env(s),
          LORE_NODE_ID: NODE,
          LORE_DATA_DIR: join(dir.path, s),
          LORE_PORT: '0',
          LORE_LOG_LEVEL: 'info',
        },
        /"url":"(http[^"]+)"/,
        90_000,
      );
    // The users service publishes the node's key; the others start once it is there.
    procs.set('users', await start('users'));
    for (const [s, p] of await Promise.all(SERVICES.slice(1).map(async (s) => [s, await start(s)] as const)))
      procs.set(s, p);
  }, 180_000);

  afterAll(async () => {
    console.info(
      `hostile participant: ${gotThrough.length} of ${attempts.length} attempts got through${gotThrough.length ? `: ${gotThrough.join('; ')}` : ''}`,
    );
    for (const c of conns) await c.close().catch(() => {});
    for (const p of procs.values()) await p.kill('SIGTERM');
    await nats?.kill();
    dir.cleanup();
  });

  it('turns away an anonymous client and a wrong password', async () => {
    await refused('anonymous connection', () => connect({ servers: nats.url, maxReconnectAttempts: 0 }));
    await refused('wrong password', () =>
      connect({ servers: nats.url, user: 'users', pass: 'guess', maxReconnectAttempts: 0 }),
    );
    await refused('token instead of a user', () =>
      connect({ servers: nats.url, token: 'anything', maxReconnectAttempts: 0 }),
    );
    expect(gotThrough).toEqual([]);
  });

  it('keeps a client with the dms credentials out of everything that is not the dms service’s', async () => {
    const nc = await as('dms');
    const js = jetstream(nc, { timeout: 3000 });
    const forged = {
      id: randomUUID(),
      subject: 'lore.knowledge.source.added',
      occurredAt: new Date().toISOString(),
      producer: { service: 'knowledge', node: NODE },
      payload: {},
    };
    // Another service's events.
    for (const subject of [
      'lore.knowledge.source.added',
      'lore.queries.answer.shared',
      'lore.users.agent.updated',
    ])
      await refused(`publish ${subject}`, () => js.publish(subject, JSON.stringify({ ...forged, subject })));
    // Another service's requests, including the private and state-changing ones.
    for (const subject of [
      'rpc.queries.decide',
      'rpc.knowledge.retrieve',
      'rpc.users.list_agents',
      'rpc.approvals.evaluate',
    ])
      await refused(`request ${subject}`, () => nc.request(subject, '{}', { timeout: 3000 }));
    // Answering (or joining the queue group of) another service's RPC.
    for (const subject of [
      'rpc.users.verify_key',
      `rpc.users.verify_key.node.${NODE}`,
      'rpc.queries.decide',
    ]) {
      await refused(`answer ${subject}`, async () => {
        const sub = nc.subscribe(subject, { queue: subject });
        const closed = await Promise.race([
          sub.closed,
          new Promise((r) => setTimeout(() => r('open'), 2000)),
        ]);
        if (closed !== 'open') throw closed ?? new Error('closed');
      });
    }
    // Reading another user's replies.
    await refused('read the users service inbox', async () => {
      const sub = nc.subscribe('_INBOX.users.>');
      const closed = await Promise.race([sub.closed, new Promise((r) => setTimeout(() => r('open'), 2000))]);
      if (closed !== 'open') throw closed ?? new Error('closed');
    });
    // Writing the directory: node keys, handles, agent cards.
    const kvm = new Kvm(nc);
    for (const bucket of ['lore_nodes', 'lore_handles', 'lore_agents'])
      await refused(`write ${bucket}`, async () => {
        const kv = await kvm.open(bucket);
        await kv.put(NODE, JSON.stringify({ node: NODE, publicKey: 'forged' }));
      });
    expect(gotThrough).toEqual([]);
  });

  it('serves each private request to its one caller, and only when the node signed it', async () => {
    const node = loadNodeIdentity({ LORE_DATA_DIR: dir.path, LORE_NODE_ID: NODE } as LoreConfig);
    const signer = new RequestSigner(node);
    const ask = async (nc: NatsConnection, subject: string, payload: unknown, signature?: string) => {
      const h = headers();
      if (signature) h.set(REQUEST_SIGNATURE_HEADER, signature);
      return (await nc.request(subject, JSON.stringify(payload), { timeout: 10_000, headers: h })).json<{
        ok: boolean;
        error?: { code: number; message: string };
      }>();
    };
    /** A request from the one allowed caller's login that the node did not sign: must be refused (403). */
    const unsigned = async (
      what: string,
      nc: NatsConnection,
      subject: string,
      payload: unknown,
      sig?: string,
    ) => {
      attempts.push(what);
      const r = await ask(nc, subject, payload, sig);
      if (r.ok || r.error?.code !== 403) gotThrough.push(what);
    };
    // No request decides a query (accepting is the queries service's own tool): no login may send
    // `rpc.queries.decide` (nats-config.test.ts), and the dms login's attempt is refused above.
    const queries = await as('queries');
    const retrieve = { agentId: randomUUID(), query: 'anything', limit: 3 };
    await unsigned('queries login: unsigned retrieve', queries, 'rpc.knowledge.retrieve', retrieve);
    const forger = loadNodeIdentity({
      LORE_DATA_DIR: join(dir.path, 'forger-rpc'),
      LORE_NODE_ID: NODE,
    } as LoreConfig);
    await unsigned(
      'queries login: retrieve signed by a made-up key',
      queries,
      'rpc.knowledge.retrieve',
      retrieve,
      new RequestSigner(forger).sign('rpc.knowledge.retrieve', retrieve),
    );
    expect(
      await ask(queries, 'rpc.knowledge.retrieve', retrieve, signer.sign('rpc.knowledge.retrieve', retrieve)),
    ).toHaveProperty('ok', true);
    const verify = { keyHash: 'x'.repeat(64) };
    await unsigned('queries login: unsigned verify_key', queries, 'rpc.users.verify_key', verify);
    expect(
      await ask(queries, 'rpc.users.verify_key', verify, signer.sign('rpc.users.verify_key', verify)),
    ).toHaveProperty('ok');
    expect(gotThrough).toEqual([]);
  });

  it('drops unsigned events and events signed by a replaced node key', async () => {
    const users = procs.get('users')!;
    const dropped = async () => {
      const text = await (await fetch(users.url.replace(/\/mcp$/, '/metrics'))).text();
      return [...text.matchAll(/^lore_envelopes_dropped_total\{[^}]*\} (\d+)/gm)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
    };
    const before = await dropped();
    // The holder of the knowledge service's credentials may publish its events, but not unsigned ones.
    const knowledge = await as('knowledge');
    const js = jetstream(knowledge);
    const event = (extra: object = {}) => ({
      id: randomUUID(),
      subject: 'lore.knowledge.source.added',
      occurredAt: new Date().toISOString(),
      producer: { service: 'knowledge', node: NODE },
      payload: { agentId: randomUUID(), handle: 'victim', source: 'forged', keywords: ['forged'], chunks: 1 },
      ...extra,
    });
    await js.publish('lore.knowledge.source.added', JSON.stringify(event()));
    // Even the users service's credentials (the one allowed to write the directory) cannot
    // replace the node's pinned key: the record is written, nobody believes it.
    const usersConn = await as('users');
    const nodes = await new Kvm(usersConn).open('lore_nodes');
    const forger = loadNodeIdentity({
      LORE_DATA_DIR: join(dir.path, 'forger'),
      LORE_NODE_ID: NODE,
    } as LoreConfig);
    await nodes.put(NODE, JSON.stringify({ node: NODE, publicKey: forger.publicKey }));
    await js.publish('lore.knowledge.source.added', JSON.stringify(new EnvelopeSigner(forger).sign(event())));
    // A signature from a made-up node.
    const stranger = loadNodeIdentity({
      LORE_DATA_DIR: join(dir.path, 'stranger'),
      LORE_NODE_ID: 'stranger',
    } as LoreConfig);
    await js.publish(
      'lore.knowledge.source.added',
      JSON.stringify(
        new EnvelopeSigner(stranger).sign(event({ producer: { service: 'knowledge', node: 'stranger' } })),
      ),
    );
    const deadline = Date.now() + 30_000;
    while ((await dropped()) < before + 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const count = (await dropped()) - before;
    attempts.push('unsigned event', 'event signed by a replaced key', 'event signed by an unknown node');
    if (count < 3) gotThrough.push(`${3 - count} forged events not dropped`);
    expect(count).toBe(3);
    expect(users.output()).toMatch(/node key in the directory refused/);
  });

  it('logged the refused attempts on the server, and no refusal of a Lore service', () => {
    const refusals = [...nats.output.matchAll(/Violation - User "([^"]+)"/g)].map((m) => m[1]);
    expect(refusals.length).toBeGreaterThan(0);
    expect(new Set(refusals)).toEqual(new Set(['dms']));
  });
});
