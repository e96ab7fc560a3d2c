/**
 * Lore on a three-server JetStream cluster (streams and KV buckets with three replicas), two
 * Lore nodes connected with the cluster's full server list. While questions (node A to node B),
 * den posts and DMs flow, one NATS server is killed with SIGKILL and restarted, then the
 * stream's leader. Every acknowledged write must arrive exactly once, and the time from the kill
 * to the first question that crosses the network again is reported.
 */
import { join } from 'node:path';
import { openDatabase } from '@lore/kit/db';
import { NatsBus } from '@lore/kit/nats';
import {
  type Client,
  call,
  connectClient,
  NatsAuthFixture,
  NatsCluster,
  NatsServerProcess,
  ok,
  tempDir,
} from '@lore/kit/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Spawned, spawnTs } from '../helpers.js';
import { sleep, waitFor } from './support.js';

const NODE = join(import.meta.dirname, 'fixtures/cluster-node.ts');
type Requested = Record<string, { status: string }>;

/**
 * Exactly once on the recipient's node, read from its queries database: every acknowledged
 * question has one copy for the recipient, and every copy was made by one handled event (its
 * inbox row, keyed `<consumer>#<recipient id>`), so no question arrived twice under another
 * event id. At most the questions tried can have arrived.
 */
async function expectReceivedOnce(file: string, handle: string, acked: string[], tried: number) {
  const db = await openDatabase({ url: `file:${file}`, schema: {} });
  try {
    const copies = (
      await db.$client.execute({
        sql: 'select id, recipient_id from received_queries where recipient_handle = ?',
        args: [handle],
      })
    ).rows;
    const ids = copies.map((r) => String(r.id));
    for (const id of acked)
      expect(
        ids.filter((x) => x === id),
        `copies of ${id}`,
      ).toHaveLength(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeLessThanOrEqual(tried);
    const recipient = String(copies[0]!.recipient_id);
    const handled = await db.$client.execute({
      sql: 'select count(*) as n from lore_inbox where consumer like ?',
      args: [`%#${recipient}`],
    });
    expect(Number(handled.rows[0]!.n), 'question events handled for the recipient').toBe(ids.length);
  } finally {
    db.$client.close();
  }
}

describe('a JetStream cluster losing a server, then the stream leader, under load', () => {
  const dir = tempDir('lore-nats-cluster-');
  const auth = new NatsAuthFixture({ nodes: ['cluster-a', 'cluster-b'], dir: dir.path });
  let cluster: NatsCluster;
  const nodes: Record<'a' | 'b', Spawned | undefined> = { a: undefined, b: undefined };
  const recovery: Record<string, number> = {};

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable())
      throw new Error('nats-server is required for the cluster tests');
    cluster = await NatsCluster.start(join(dir.path, 'nats'), { auth });
    const servers = cluster.nodes.map((n) => n.url);
    const env = (id: 'a' | 'b', order: string[]) => ({
      NATS_URL: order.join(','),
      ...auth.env('node'),
      LORE_NATS_REPLICAS: '3',
      LORE_NODE_ID: `cluster-${id}`,
      LORE_DATA_DIR: join(dir.path, id),
      LORE_PORT: '0',
      LORE_LOG_LEVEL: 'warn',
      LORE_RATE_LIMITS: 'false',
      LORE_INGEST_OWN_DOCS: 'false',
      LORE_ANSWER_QUOTA_PER_MINUTE: '1000000',
      LORE_ANSWER_QUOTA_PER_DAY: '1000000',
    });
    // Node A starts first (it creates the stream and buckets), then B, listing the servers in another order.
    nodes.a = await spawnTs(NODE, [], env('a', servers), /Lore is running at (\S+)/, 150_000);
    nodes.b = await spawnTs(NODE, [], env('b', [...servers].reverse()), /Lore is running at (\S+)/, 150_000);
  }, 400_000);

  afterAll(async () => {
    console.info(`nats-cluster recovery (ms): ${JSON.stringify(recovery)}`);
    await nodes.a?.kill();
    await nodes.b?.kill();
    await cluster?.stop();
    dir.cleanup();
  }, 60_000);

  it('delivers every acknowledged question, post and DM exactly once, and reports the recovery time', async () => {
    const register = async (node: Spawned, handle: string) => {
      const anon = await connectClient(undefined, { url: node.url });
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      return connectClient(undefined, { url: node.url, key: r.data.apiKey });
    };
    const alice = await register(nodes.a!, 'alice');
    const carol = await register(nodes.a!, 'carol');
    const bob = await register(nodes.b!, 'bob');
    const dave = await register(nodes.b!, 'dave');
    const requested = async (): Promise<Requested> => {
      const r = await call<Requested>(bob, 'cqListRequestedQueries');
      // While the cluster elects a leader, a read that needs another service may answer 503
      // (retry shortly): nothing seen yet, not a failure. Any other error is one.
      if (r.isError && r.error?.code === 503) return {};
      if (r.isError) throw new Error(`cqListRequestedQueries failed: ${r.text}`);
      return r.data;
    };

    const acked = {
      questions: [] as string[],
      posts: new Map<string, string[]>(),
      dms: new Map<string, string[]>(),
    };
    const tried = { questions: 0, posts: 0, dms: 0 };
    let stop = false;
    let n = 0;
    /** One write; a failure (NATS unreachable for a request) is counted as tried, not acknowledged. */
    const attempt = async (kind: keyof typeof tried, fn: () => Promise<void>) => {
      tried[kind]++;
      try {
        await fn();
      } catch {
        // not acknowledged: it may or may not have landed, and is not required to
      }
    };
    const post = (c: Client, node: string) =>
      attempt('posts', async () => {
        const title = `post ${node} ${n++}`;
        await ok(c, 'den_post', { den: 'general', title, content: `${title}: through the cluster.` });
        acked.posts.set(node, [...(acked.posts.get(node) ?? []), title]);
      });
    const dm = (from: Client, to: string) =>
      attempt('dms', async () => {
        const content = `dm to ${to} ${n++}`;
        await ok(from, 'dm_send', { to, content });
        acked.dms.set(to, [...(acked.dms.get(to) ?? []), content]);
      });
    const ask = async () => {
      const r = await ok<{ query_id: string }>(alice, 'cqAskQuestion', {
        question: `Which bread rises best at altitude, attempt ${n++}?`,
        peers: ['bob'],
      });
      return r.data.query_id;
    };
    const workload = (async () => {
      // Bounded so that each den and conversation fits one page of 100 when checked.
      while (!stop && tried.posts < 150) {
        await attempt('questions', async () => {
          acked.questions.push(await ask());
        });
        await post(carol, 'a');
        await post(dave, 'b');
        await dm(carol, 'alice');
        await dm(dave, 'bob');
        await sleep(100);
      }
    })();

    /** Kill a server, then measure until a question asked after the kill reaches node B. */
    const fault = async (label: string, victim: string) => {
      const server = cluster.node(victim);
      const t0 = performance.now();
      await server.kill();
      let probe: string | undefined;
      while (!probe) {
        tried.questions++;
        try {
          probe = await ask();
        } catch {
          await sleep(100);
        }
      }
      recovery[`${label}:ack`] = Math.round(performance.now() - t0);
      acked.questions.push(probe);
      await waitFor(`${label}: a question crossing the network`, requested, (m) => !!m[probe!], 60_000);
      recovery[`${label}:crossed`] = Math.round(performance.now() - t0);
      await server.start();
      await cluster.ready();
      recovery[`${label}:restarted`] = Math.round(performance.now() - t0);
    };

    await waitFor(
      'writes flowing',
      async () => acked.questions.length,
      (c) => c >= 5,
      60_000,
    );
    await fault('one-server', 'n1');
    await waitFor(
      'writes flowing again',
      async () => acked.questions.length,
      (c) => c >= 15,
      60_000,
    );
    const bus = await NatsBus.connect({
      url: cluster.url,
      replicas: 3,
      credentials: { kind: 'user', user: 'ops', password: auth.passwords.ops! },
      inboxPrefix: '_INBOX.ops',
    });
    const jsm = await jetstreamManager(bus.connection);
    const leader = (await jsm.streams.info('LORE_EVENTS')).cluster!.leader!;
    await fault('stream-leader', leader);
    await waitFor(
      'writes flowing after the leader',
      async () => acked.questions.length,
      (c) => c >= 25,
      60_000,
    );
    stop = true;
    await workload;

    try {
      // Every acknowledged question reached bob's node, and its no-knowledge outcome came back.
      await expect
        .poll(async () => Object.keys(await requested()).length, { timeout: 60_000, interval: 200 })
        .toBeGreaterThanOrEqual(acked.questions.length);
      const received = await requested();
      for (const id of acked.questions) expect(received[id], id).toBeDefined();
      await expectReceivedOnce(join(dir.path, 'b', 'queries.db'), 'bob', acked.questions, tried.questions);
      // Exactly once in the stream: at least every acknowledged write, at most every attempt.
      const info = await jsm.streams.info('LORE_EVENTS', { subjects_filter: 'lore.>' });
      const subjects = (info.state.subjects ?? {}) as Record<string, number>;
      const asked = subjects['lore.queries.question.asked'] ?? 0;
      expect(asked).toBeGreaterThanOrEqual(acked.questions.length);
      expect(asked).toBeLessThanOrEqual(tried.questions);
      // Each node's posts and DMs: every acknowledged one once.
      for (const [node, client] of [
        ['a', carol],
        ['b', dave],
      ] as const) {
        const page = await ok<{ messages: Array<{ title: string }> }>(client, 'den_messages', {
          den: 'general',
          limit: 100,
        });
        const titles = page.data.messages.map((m) => m.title);
        for (const t of acked.posts.get(node) ?? [])
          expect(
            titles.filter((x) => x === t),
            t,
          ).toHaveLength(1);
      }
      for (const [to, client] of [
        ['alice', alice],
        ['bob', bob],
      ] as const) {
        const from = to === 'alice' ? 'carol' : 'dave';
        const read = await ok<{ messages: Array<{ content: string }> }>(client, 'dm_read', {
          with: from,
          limit: 100,
        });
        const contents = read.data.messages.map((m) => m.content);
        for (const c of acked.dms.get(to) ?? [])
          expect(
            contents.filter((x) => x === c),
            c,
          ).toHaveLength(1);
      }
      // Every durable consumer caught up: nothing pending, nothing waiting for an ack.
      await expect
        .poll(
          async () => {
            let behind = 0;
            for await (const c of jsm.consumers.list('LORE_EVENTS'))
              behind += c.num_pending + c.num_ack_pending;
            return behind;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe(0);
      console.info(
        `nats-cluster writes: acknowledged ${acked.questions.length} questions, ${[...acked.posts.values()].flat().length} posts, ${[...acked.dms.values()].flat().length} DMs; tried ${JSON.stringify(tried)}`,
      );
    } finally {
      await bus.close();
    }
    expect(recovery['one-server:crossed']).toBeLessThan(60_000);
    expect(recovery['stream-leader:crossed']).toBeLessThan(60_000);
  }, 400_000);
});
