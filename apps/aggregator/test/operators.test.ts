/**
 * Three operators, one Lore network, on loopback: a hub nats-server and three leaf nats-servers
 * (each operator's own, with its own users, JetStream and credentials, configured as
 * `pnpm nats:hub` and `pnpm nats:leaf` render them), each with its own Lore node. Operator C is
 * then hostile: with full control of its NATS and its hub account it tries to read, forge,
 * overwrite, replay, reach inside and flood, and every attempt is tallied (0 get through). Then
 * the hub goes away: a node keeps serving its own agents, and what it asked meanwhile arrives
 * once the hub is back. Last, C's node leaves: its agents leave A's and B's directories once C
 * has been silent for the directory's TTL.
 *
 * A and C run their link inside the all-in-one node; B runs it as its own process (`lore network
 * link`, as the `link` NATS user), as the split topology does.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApprovalsService } from '@lore/approvals';
import {
  type Announcement,
  createNetworkKey,
  EnvelopeSigner,
  type LoreConfig,
  loadConfig,
  loadNodeIdentity,
  type NodeIdentity,
  rotateNodeIdentity,
  serveHttp,
  signAnnouncement,
} from '@lore/kit';
import {
  type Client,
  call,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsClusterNode,
  NatsServerProcess,
  nodeIdentityFile,
  ok,
  provisionAsOps,
  tempDir,
} from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { QuestionAsked } from '@lore/schema';
import { createUsersService } from '@lore/users';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AggregatorConfigSchema, type AllInOne, startAllInOne } from '../src/index.js';
import { runNetworkCli } from '../src/network-cli.js';
import { QUANTUM_TXT, QUESTION } from './fixtures/knowledge.js';
import { ROOT, type Spawned, spawnTs } from './helpers.js';

const TSX = join(ROOT, 'node_modules/.bin/tsx');
const NETWORK_TS = join(ROOT, 'infra/nats/network.ts');
const render = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(TSX, [NETWORK_TS, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

const ops = ['a', 'b', 'c'] as const;
type Op = (typeof ops)[number];
const nodeOf = (o: Op) => `node-${o}`;
const accountOf = (o: Op) => `op-${o}`;
/** What each node lets another send it: 60 a minute, 20 at once (the flood test counts against it). */
const PEER_RATE = { perMinute: 60, burst: 20 };
/** Announcements every 2 s; a node silent for 12 s leaves the others' directories. */
const ANNOUNCE_SECONDS = 2;
const DIRECTORY_TTL_SECONDS = 12;
/** B's link runs as its own process; A's and C's inside their all-in-one node. */
const LINK_APART: Op = 'b';

type Requested = Record<string, { status: string; from: string; draft: { text: string } | null }>;
type Asked = { questions: Array<{ id: string; answers: Array<{ peer: string; text: string }> }> };
type Active = { active: Array<{ username: string; node: string }> };

const until = <T>(fn: () => Promise<T>, check: (v: T) => boolean, timeout = 30_000) =>
  expect.poll(async () => check(await fn()), { timeout, interval: 200 }).toBe(true);

describe.skipIf(!NatsServerProcess.binaryAvailable())('three operators, one network', () => {
  const dir = tempDir('lore-operators-');
  const hubPasswords = Object.fromEntries(
    ops.map((o) => [o, `hp${randomUUID().replace(/-/g, '')}`]),
  ) as Record<Op, string>;
  const hubEnv = Object.fromEntries(
    ops.map((o) => [`LORE_HUB_PASSWORD_OP_${o.toUpperCase()}`, hubPasswords[o]]),
  ) as Record<string, string>;
  let hub: NatsClusterNode;
  let leafPort: number;
  const leaves = {} as Record<Op, { server: NatsClusterNode; auth: NatsAuthFixture }>;
  const nodes = {} as Record<Op, { lore: AllInOne; url: string; close: () => Promise<void> }>;
  let linkProcess: Spawned | undefined;
  const agents: Record<string, { client: Client; id: string }> = {};
  const tally: Array<{ attempt: string; got: number }> = [];

  const register = async (o: Op, username: string, bio: string) => {
    const anon = await connectClient(undefined, { url: nodes[o].url });
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username,
      email: `${username}@${o}.example.com`,
      displayName: username,
      bio,
    });
    const client = await connectClient(undefined, { url: nodes[o].url, key: r.data.apiKey });
    agents[`${username}@${o}`] = { client, id: r.data.agent.id };
    return client;
  };
  const agent = (name: string) => agents[name]!.client;
  const requested = async (c: Client) => (await ok<Requested>(c, 'cqListRequestedQueries')).data;
  const asked = async (c: Client) => (await ok<Asked>(c, 'cqListAskedQuestions')).data;
  const active = async (c: Client) => (await ok<Active>(c, 'cqGetActiveUsers', { flag: true })).data.active;

  beforeAll(async () => {
    const hubPort = await freePort();
    leafPort = await freePort();
    const hubFile = join(dir.path, 'hub.conf');
    writeFileSync(
      hubFile,
      render([
        'hub',
        ...ops.flatMap((o) => ['--member', `${accountOf(o)}=${nodeOf(o)}`]),
        '--port',
        String(hubPort),
        '--leaf-port',
        String(leafPort),
        // C's own server and C's rogue one: a third is refused.
        '--max-leafnodes',
        '2',
      ]),
    );
    hub = new NatsClusterNode('hub', hubPort, 0, hubFile, hubEnv);
    await hub.start();

    for (const o of ops) {
      const port = await freePort();
      const file = join(dir.path, `leaf-${o}.conf`);
      mkdirSync(join(dir.path, `js-${o}`));
      render(
        [
          'leaf',
          '--hub',
          `nats-leaf://127.0.0.1:${leafPort}`,
          '--account',
          accountOf(o),
          '--nodes',
          nodeOf(o),
          '--port',
          String(port),
          '--store',
          join(dir.path, `js-${o}`),
          '--out',
          file,
        ],
        { LORE_HUB_PASSWORD: hubPasswords[o] },
      );
      const auth = new NatsAuthFixture(file);
      const server = new NatsClusterNode(`leaf-${o}`, port, 0, file, auth.serverEnv);
      await server.start();
      await provisionAsOps(server.url, auth);
      leaves[o] = { server, auth };
    }

    await Promise.all(
      ops.map(async (o) => {
        const { server, auth } = leaves[o];
        const networkEnv = {
          LORE_DATA_DIR: join(dir.path, `data-${o}`),
          LORE_NODE_ID: nodeOf(o),
          NATS_URL: server.url,
          LORE_NETWORK_NATS_URL: server.url,
          LORE_NETWORK_NATS_PASSWORD: auth.passwords.network!,
          LORE_NETWORK_ANNOUNCE_SECONDS: String(ANNOUNCE_SECONDS),
          LORE_NETWORK_DIRECTORY_TTL_SECONDS: String(DIRECTORY_TTL_SECONDS),
          LORE_NETWORK_PEER_RATE: String(PEER_RATE.perMinute),
          LORE_NETWORK_PEER_BURST: String(PEER_RATE.burst),
        };
        const apart = o === LINK_APART;
        // The link alone, as its own NATS user, beside the node: the same node identity, made first.
        if (apart) nodeIdentityFile(networkEnv.LORE_DATA_DIR, nodeOf(o));
        const link = apart
          ? spawnTs(
              join(ROOT, 'apps/aggregator/src/main.ts'),
              ['network', 'link'],
              { ...process.env, ...networkEnv, ...auth.env('link'), LORE_PORT: '0', LORE_LOG_LEVEL: 'info' },
              /"url":"(http[^"]+)"/,
              240_000,
            )
          : undefined;
        const config = loadConfig(
          {
            ...networkEnv,
            ...(apart ? { LORE_NETWORK_NATS_URL: '' } : {}),
            ...auth.env('node'),
            LORE_PORT: '0',
            LORE_LOG_LEVEL: 'silent',
            LORE_RATE_LIMITS: 'false',
            LORE_LLM_BASE_URL: '',
          },
          AggregatorConfigSchema,
        );
        const lore = await startAllInOne(config, {
          services: [
            { name: 'users', create: createUsersService },
            { name: 'knowledge', create: (deps) => createKnowledgeService(deps) },
            { name: 'queries', create: createQueriesService },
            { name: 'approvals', create: createApprovalsService },
          ],
        });
        if (apart) expect(lore.network).toBeUndefined();
        if (link) {
          linkProcess = await link;
          expect((await fetch(`${linkProcess.url}/readyz`)).status).toBe(200);
        }
        const http = await serveHttp(lore.app, config);
        nodes[o] = {
          lore,
          url: `${http.url}/mcp`,
          close: async () => {
            await http.close();
            await lore.close();
          },
        };
      }),
    );
    await register('a', 'alice', 'Professor of physics at the University of Geneva.');
    await register('a', 'dana', 'Baker in Lyon.');
    await register('b', 'bob', 'Quantum hardware engineer.');
    await register('c', 'carol', 'Science journalist.');
    // The same handle on another operator's node: allowed, and qualified wherever both show.
    await register('c', 'dana', 'Dancer in Porto.');
  }, 300_000);

  afterAll(async () => {
    if (tally.length) console.info(`hostile attempts that got through: ${JSON.stringify(tally)}`);
    await linkProcess?.kill('SIGTERM');
    await Promise.all(ops.map((o) => nodes[o]?.close().catch(() => {})));
    for (const o of ops) await leaves[o]?.server.kill('SIGTERM');
    await hub?.kill('SIGTERM');
    dir.cleanup();
  }, 60_000);

  it('each sees the others’ agents, a handle that collides qualified by its node', async () => {
    await until(
      () => active(agent('alice@a')),
      (list) => ['bob', 'carol', 'dana@node-c'].every((u) => list.some((x) => x.username === u)),
    );
    const onA = await active(agent('alice@a'));
    expect(onA.find((x) => x.username === 'bob')?.node).toBe('node-b');
    expect(onA.find((x) => x.username === 'carol')?.node).toBe('node-c');
    expect(onA.find((x) => x.username === 'dana@node-c')?.node).toBe('node-c');
    expect(onA.find((x) => x.username === 'dana')?.node).toBe('node-a');

    await until(
      () => active(agent('bob@b')),
      (list) =>
        ['alice', 'carol'].every((u) => list.some((x) => x.username === u)) &&
        list.filter((x) => x.username.startsWith('dana')).length === 2,
    );
    // B hosts neither dana: one of them shows plain (the first it heard of), the other qualified.
    const danasOnB = (await active(agent('bob@b'))).filter((x) => x.username.startsWith('dana'));
    expect(danasOnB.map((d) => d.node).sort()).toEqual(['node-a', 'node-c']);
    expect(danasOnB.some((d) => d.username === `dana@${d.node}`)).toBe(true);
    await until(
      () => active(agent('carol@c')),
      (list) => ['alice', 'bob', 'dana@node-a'].every((u) => list.some((x) => x.username === u)),
    );

    // agent_search spans the network, with the qualified handle where it collides.
    const search = await ok<{ agents: Array<{ username: string; node: string }> }>(
      agent('alice@a'),
      'agent_search',
      {
        query: 'dancer porto',
        limit: 20,
      },
    );
    expect(search.data.agents.find((x) => x.node === 'node-c')?.username).toBe('dana@node-c');
    expect(search.text).toContain('@dana@node-c');
  });

  it('an agent of A asks an agent of B by name and gets the approved answer', async () => {
    await ok(agent('bob@b'), 'updateKnowledgeSources', {
      file_name: 'quantum_computing.txt',
      file_content: QUANTUM_TXT,
    });
    const id = (
      await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
        question: QUESTION,
        peers: ['bob'],
      })
    ).data.query_id;
    await until(
      () => requested(agent('bob@b')),
      (m) => m[id]?.status === 'pending',
    );
    expect((await requested(agent('bob@b')))[id]?.from).toBe('alice');
    const draft = (await requested(agent('bob@b')))[id]!.draft!.text;
    await ok(agent('bob@b'), 'cqAcceptQuery', { id });
    await until(
      () => asked(agent('alice@a')),
      (a) => a.questions.find((q) => q.id === id)?.answers.length === 1,
    );
    expect((await asked(agent('alice@a'))).questions.find((q) => q.id === id)!.answers[0]).toMatchObject({
      peer: 'bob',
      text: draft,
    });
  }, 60_000);

  it('a broadcast from C reaches A and B where it matched (and a qualified handle addresses the right agent)', async () => {
    // Bob (B) holds the quantum computing note; A's dana gets one too. Alice (A) holds nothing on it.
    await ok(agent('dana@a'), 'updateKnowledgeSources', {
      file_name: 'qubits.md',
      file_content: 'Logical qubits and quantum error correction: our lab works on superconducting qubits.',
    });
    const id = (
      await ok<{ query_id: string }>(agent('carol@c'), 'cqAskQuestion', {
        question: 'Who here works on logical qubits and quantum error correction?',
        peers: [],
      })
    ).data.query_id;
    for (const who of ['bob@b', 'dana@a'])
      await until(
        () => requested(agent(who)),
        (m) => m[id] !== undefined,
      );
    // A broadcast that matched nothing is dropped: it is in no inbox of an agent with nothing on it.
    expect((await requested(agent('alice@a')))[id]).toBeUndefined();
    // On A, `dana@node-c` is C's dana: a question to it reaches her, not A's dana.
    const q = (
      await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
        question: 'Any good dance schools?',
        peers: ['dana@node-c'],
      })
    ).data.query_id;
    await until(
      () => requested(agent('dana@c')),
      (m) => m[q] !== undefined,
    );
    expect((await requested(agent('dana@a')))[q]).toBeUndefined();
  }, 60_000);

  it('another operator’s agent under a local agent’s handle shows qualified in what it asks and answers', async () => {
    /** The recipient writes an answer and sends it (accepting the query when it waits for that). */
    const answer = async (who: string, id: string, text: string) => {
      const edited = await ok<{ sent_to_asker: boolean }>(agent(who), 'cqUpdateEditAnswer', {
        query_id: id,
        new_answer: text,
      });
      return edited.data.sent_to_asker ? edited : ok(agent(who), 'cqAcceptQuery', { id });
    };
    // C's dana (A hosts a dana of its own) asks A's alice: on A she is `dana@node-c`, never `dana`.
    const id = (
      await ok<{ query_id: string }>(agent('dana@c'), 'cqAskQuestion', {
        question: 'Is there a physics of dance?',
        peers: ['alice'],
      })
    ).data.query_id;
    await until(
      () => requested(agent('alice@a')),
      (m) => m[id] !== undefined,
    );
    expect((await requested(agent('alice@a')))[id]!.from).toBe('dana@node-c');
    const fromC = await ok<Requested>(agent('alice@a'), 'cqListRequestedQueries', { from: 'dana@node-c' });
    expect(Object.keys(fromC.data)).toContain(id);
    const mine = await ok<Requested>(agent('alice@a'), 'cqListRequestedQueries', { from: 'dana' });
    expect(Object.keys(mine.data)).not.toContain(id);
    const sent = await answer('alice@a', id, 'Yes: angular momentum explains a pirouette.');
    expect(sent.text).toContain('@dana@node-c');
    expect(sent.text).not.toMatch(/@dana(?!@)/);
    // On C the answer comes from `alice` (no collision there) and reaches C's dana.
    await until(
      () => asked(agent('dana@c')),
      (a) => a.questions.find((q) => q.id === id)?.answers.length === 1,
    );
    expect((await asked(agent('dana@c'))).questions.find((q) => q.id === id)!.answers[0]!.peer).toBe('alice');

    // A's alice asks C's dana: the answer shows as `dana@node-c`'s, not A's dana's.
    const q = (
      await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
        question: 'Which dance would you teach a physicist?',
        peers: ['dana@node-c'],
      })
    ).data.query_id;
    await until(
      () => requested(agent('dana@c')),
      (m) => m[q] !== undefined,
    );
    expect((await requested(agent('dana@c')))[q]!.from).toBe('alice');
    await answer('dana@c', q, 'The waltz: it is all rotation.');
    await until(
      () => asked(agent('alice@a')),
      (a) => a.questions.find((x) => x.id === q)?.answers.length === 1,
    );
    expect((await asked(agent('alice@a'))).questions.find((x) => x.id === q)!.answers[0]!.peer).toBe(
      'dana@node-c',
    );
    const summary = await ok(agent('alice@a'), 'cqSummarizeAnswers', { related_question: q });
    expect(summary.text).toContain('dana@node-c');
  }, 90_000);

  describe('operator C, hostile, with full control of its NATS and its hub account', () => {
    let rogue: NatsClusterNode;
    let nc: NatsConnection;
    let c: NodeIdentity;
    const heard: string[] = [];
    /** A new key for C, not signed by its pinned one. */
    const other = { ...createNetworkKey(), id: 'node-c' };

    beforeAll(async () => {
      // C's own server, as C pleases: no users, no permissions, one account bound to C's hub login.
      const port = await freePort();
      const file = join(dir.path, 'rogue.conf');
      writeFileSync(
        file,
        [
          `listen: 127.0.0.1:${port}`,
          'leafnodes {',
          `  remotes: [ { url: "nats-leaf://${accountOf('c')}:${hubPasswords.c}@127.0.0.1:${leafPort}" } ]`,
          '}',
          '',
        ].join('\n'),
      );
      rogue = new NatsClusterNode('rogue', port, 0, file);
      await rogue.start();
      nc = await connect({ servers: rogue.url });
      // Everything that reaches C's account at all.
      nc.subscribe('>', {
        callback: (_e, m) => {
          heard.push(m.subject);
        },
      });
      await nc.flush();
      c = loadNodeIdentity({ LORE_DATA_DIR: join(dir.path, 'data-c'), LORE_NODE_ID: 'node-c' } as never);
      // The hub has C's second leaf connection once the directory reaches it.
      await vi.waitFor(
        () => {
          if (!heard.includes('lore.net.dir.node-a')) throw new Error('C’s second server is not linked yet');
        },
        { timeout: 30_000, interval: 200 },
      );
    }, 60_000);

    afterAll(async () => {
      await nc?.close();
      await rogue?.kill('SIGTERM');
    });

    const count = (attempt: string, got: number) => {
      tally.push({ attempt, got });
      return got;
    };
    const linkOf = (o: Op) => nodes[o].lore.network!;
    /** A request C sends through the hub: the receipt, or why none came. */
    const send = async (subject: string, body: unknown) => {
      try {
        const m = await nc.request(subject, typeof body === 'string' ? body : JSON.stringify(body), {
          // Generous: three nodes and the test share one event loop on a loaded machine.
          timeout: 15_000,
        });
        return m.json<{ ok: boolean; error?: string }>();
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
    };
    const questionFrom = (
      signer: NodeIdentity,
      producer: string,
      askerNode: string,
      extra: Record<string, unknown> = {},
    ) =>
      new EnvelopeSigner(signer).sign({
        id: randomUUID(),
        subject: QuestionAsked.subject,
        occurredAt: new Date().toISOString(),
        producer: { node: producer, service: 'queries' },
        payload: {
          questionId: `qry-${randomUUID().slice(0, 8)}`,
          question: 'Send me everything you know.',
          askedAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          asker: { id: agents['carol@c']!.id, handle: 'carol', node: askerNode, profile: null },
          recipients: [{ id: agents['alice@a']!.id, handle: 'alice', node: 'node-a' }],
          ...extra,
        },
      });

    it('cannot read a question A addressed to B', async () => {
      heard.length = 0;
      const id = (
        await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
          question: 'What is a transmon?',
          peers: ['bob'],
        })
      ).data.query_id;
      await until(
        () => requested(agent('bob@b')),
        (m) => m[id] !== undefined,
      );
      const leaked = heard.filter(
        (s) => s.startsWith('lore.net.ask.node-b') || s.startsWith('lore.net.answer.node-a'),
      );
      expect(count('read a question A addressed to B', leaked.length)).toBe(0);
      // A direct subscription to B's subject hears nothing either (the hub exports it to A's account alone).
      const snoop = nc.subscribe('lore.net.ask.node-b.node-a');
      let got = 0;
      void (async () => {
        for await (const _ of snoop) got++;
      })();
      await nc.flush();
      const id2 = (
        await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
          question: 'And a fluxonium?',
          peers: ['bob'],
        })
      ).data.query_id;
      await until(
        () => requested(agent('bob@b')),
        (m) => m[id2] !== undefined,
      );
      snoop.unsubscribe();
      expect(count('subscribe to lore.net.ask.node-b.node-a', got)).toBe(0);
    }, 60_000);

    it('cannot publish an answer as B', async () => {
      const before = linkOf('a').accepted.answer;
      const answer = (producer: string, signer: NodeIdentity) =>
        new EnvelopeSigner(signer).sign({
          id: randomUUID(),
          subject: 'lore.queries.answer.shared',
          occurredAt: new Date().toISOString(),
          producer: { node: producer, service: 'queries' },
          payload: {
            questionId: 'qry-any',
            askerId: agents['alice@a']!.id,
            askerHandle: 'alice',
            recipientId: agents['bob@b']!.id,
            recipientHandle: 'bob',
            text: 'Forged.',
            citations: [],
            strategy: 'manual',
            revision: 9,
            sharedAt: new Date().toISOString(),
          },
        });
      const forged = { ...c, id: 'node-b' };
      const receipts = [
        // B's subject: C's account has no such import, so nobody answers.
        await send('lore.net.answer.node-a.node-b', answer('node-b', forged)),
        // C's own subject carrying an envelope that claims B.
        await send('lore.net.answer.node-a.node-c', answer('node-b', forged)),
        // Signed by C as C, but speaking for bob, whom B hosts.
        await send('lore.net.answer.node-a.node-c', answer('node-c', c)),
      ];
      expect(receipts.map((r) => r.ok)).toEqual([false, false, false]);
      expect(receipts[0]!.error).toMatch(/no responders|timeout/i);
      expect(receipts[1]!.error).toMatch(/not-from-sender/);
      expect(receipts[2]!.error).toMatch(/sender-not-hosted/);
      expect(count('publish an answer as B', linkOf('a').accepted.answer - before)).toBe(0);
    });

    it('cannot write or overwrite B’s directory entry or key', async () => {
      const dirA = nodes.a.lore.directory;
      const bKey = (await dirA.nodeKeys('node-b'))[0];
      const bob = await dirA.lookupHandle('bob');
      const announce = (subject: string, a: Omit<Announcement, 'signature'>, key: NodeIdentity) =>
        nc.publish(subject, JSON.stringify(signAnnouncement(a, key)));
      const entry = (node: string, key: NodeIdentity, agentsList: Announcement['agents']) => ({
        node,
        publicKey: key.publicKey,
        at: Date.now(),
        agents: agentsList,
      });
      const refusedBefore = { ...linkOf('a').refusals };
      // B's own subject (C cannot publish it into anyone's account), and C's subject claiming to be B.
      announce(
        'lore.net.dir.node-b',
        entry('node-b', c, [{ handle: 'bob', agentId: 'stolen', card: null }]),
        c,
      );
      announce(
        'lore.net.dir.node-c',
        entry('node-b', c, [{ handle: 'bob', agentId: 'stolen', card: null }]),
        c,
      );
      // C as itself, with a new key that its pinned key did not sign.
      announce(
        'lore.net.dir.node-c',
        entry('node-c', other, [{ handle: 'bob', agentId: 'stolen', card: null }]),
        other,
      );
      await until(
        async () =>
          (linkOf('a').refusals['not-from-sender'] ?? 0) > (refusedBefore['not-from-sender'] ?? 0) &&
          (linkOf('a').refusals['key-refused'] ?? 0) > (refusedBefore['key-refused'] ?? 0),
        (v) => v,
      );
      // C, with its real key, announcing bob as its own (beside its own agents): bob stays B's,
      // C's claim is qualified. C's own link announces every ANNOUNCE_SECONDS and replaces the
      // claim, so it is sent again on every look until one is seen between two of those.
      const claim = () =>
        announce(
          'lore.net.dir.node-c',
          entry('node-c', c, [
            { handle: 'bob', agentId: 'stolen', card: null },
            { handle: 'carol', agentId: agents['carol@c']!.id, card: null },
            { handle: 'dana', agentId: agents['dana@c']!.id, card: null },
          ]),
          c,
        );
      await until(
        async () => {
          const seen = await dirA.lookupHandle('bob@node-c');
          claim();
          return seen;
        },
        (r) => r?.agentId === 'stolen',
      );
      const now = await dirA.lookupHandle('bob');
      const keyNow = (await dirA.nodeKeys('node-b', { fresh: true }))[0];
      expect(
        count(
          'write or overwrite B’s directory entry or key',
          (now?.agentId !== bob?.agentId ? 1 : 0) + (keyNow !== bKey ? 1 : 0),
        ),
      ).toBe(0);
      expect(linkOf('a').refusedKeys.get('node-c')).toBe(other.publicKey);
      expect((await dirA.nodeKeys('node-c', { fresh: true }))[0]).toBe(c.publicKey);
    }, 60_000);

    it('cannot replay B’s old signed messages', async () => {
      // B's announcement is public: C heard it. Sent again by C, and sent again on B's own subject.
      let old: string | undefined;
      const sub = nc.subscribe('lore.net.dir.node-b', {
        max: 1,
        callback: (_e, m) => {
          old = m.string();
        },
      });
      await until(
        async () => old,
        (v) => v !== undefined,
      );
      sub.unsubscribe();
      const before = linkOf('a').accepted.dir;
      const refused = linkOf('a').refusals['not-from-sender'] ?? 0;
      nc.publish('lore.net.dir.node-c', old!);
      nc.publish('lore.net.dir.node-b', old!);
      await until(
        async () => linkOf('a').refusals['not-from-sender'] ?? 0,
        (v) => v > refused,
      );
      // A question B sent to C (C's node received it lawfully), replayed by C to A.
      let fromB: string | undefined;
      nc.subscribe('lore.net.ask.node-c.node-b', {
        max: 1,
        callback: (_e, m) => {
          fromB = m.string();
        },
      });
      await nc.flush();
      await ok(agent('bob@b'), 'cqAskQuestion', {
        question: 'Carol, any articles on qubits?',
        peers: ['carol'],
      });
      await until(
        async () => fromB,
        (v) => v !== undefined,
      );
      const replays = [
        await send('lore.net.ask.node-a.node-c', fromB!),
        await send('lore.net.ask.node-a.node-b', fromB!),
      ];
      expect(receiptsOk(replays)).toBe(0);
      expect(
        count(
          'replay B’s old signed messages',
          receiptsOk(replays) + (linkOf('a').accepted.dir - before > 50 ? 1 : 0),
        ),
      ).toBe(0);
    }, 60_000);

    it('cannot reach A’s internal subjects (events, RPC, JetStream)', async () => {
      const attempts = [
        send('rpc.users.verify_key', { key: 'lore_x' }),
        send('rpc.queries.decide', {}),
        send('rpc.knowledge.retrieve', {}),
        send('$JS.API.INFO', {}),
        send('$JS.API.STREAM.INFO.LORE_EVENTS', {}),
        send('$KV.lore_handles.bob', 'x'),
        send('lore.queries.question.asked', questionFrom(c, 'node-c', 'node-c')),
      ];
      const receipts = await Promise.all(attempts);
      // And nothing of A's internal traffic shows in C's account while A works.
      heard.length = 0;
      await ok(agent('alice@a'), 'agent_update', { username: 'alice', bio: 'Professor of physics, Geneva.' });
      await ok(agent('alice@a'), 'cqListAskedQuestions');
      await nodes.a.lore.bus.ping();
      await new Promise((r) => setTimeout(r, 1_500));
      const internal = heard.filter((s) => !s.startsWith('lore.net.dir.') && !s.startsWith('_INBOX'));
      expect(
        count(
          'reach A’s internal subjects',
          receipts.filter((r) => r.ok || !/no responders|timeout/i.test(r.error ?? '')).length +
            internal.length,
        ),
      ).toBe(0);
    }, 30_000);

    it('cannot flood A’s node beyond the rate it enforces per peer', async () => {
      const before = linkOf('a').accepted.ask;
      const t0 = Date.now();
      const receipts = await Promise.all(
        Array.from({ length: 200 }, () =>
          send('lore.net.ask.node-a.node-c', questionFrom(c, 'node-c', 'node-c')),
        ),
      );
      const elapsedMin = (Date.now() - t0) / 60_000;
      const allowed = Math.floor(PEER_RATE.burst + PEER_RATE.perMinute * elapsedMin) + 1;
      const accepted = receipts.filter((r) => r.ok).length;
      expect(accepted, JSON.stringify(receipts.slice(0, 2))).toBeGreaterThan(0);
      expect(receipts.filter((r) => /rate-limited/.test(r.error ?? '')).length).toBeGreaterThan(150);
      expect(linkOf('a').accepted.ask - before).toBe(accepted);
      expect(count('flood A beyond the per-peer rate', Math.max(0, accepted - allowed))).toBe(0);
      // A message larger than a node accepts (the hub checks no size on leaf connections in 2.9).
      const big = await send('lore.net.ask.node-a.node-c', 'x'.repeat(300 * 1024));
      expect(big.error).toMatch(/too-large|rate-limited/);
      expect(count('send a message larger than A accepts', big.ok ? 1 : 0)).toBe(0);
    }, 60_000);

    it('cannot open more leaf connections than the hub allows its account', async () => {
      const port = await freePort();
      const file = join(dir.path, 'rogue-2.conf');
      writeFileSync(
        file,
        `listen: 127.0.0.1:${port}\nleafnodes { remotes: [ { url: "nats-leaf://${accountOf('c')}:${hubPasswords.c}@127.0.0.1:${leafPort}" } ] }\n`,
      );
      const third = new NatsClusterNode('rogue-2', port, 0, file);
      await third.start();
      try {
        await until(
          async () => third.output,
          // The hub refuses the connection over the account's max_leafnodes (2.9 reports it as an authorization error).
          (out) => /Authorization Violation/i.test(out),
        );
        // The same login is accepted while the account has a leaf connection to spare (the rogue server above).
        expect(
          count(
            'open a third leaf connection for C’s account',
            /Authorization Violation/.test(third.output) ? 0 : 1,
          ),
        ).toBe(0);
      } finally {
        await third.kill('SIGTERM');
      }
    }, 60_000);

    it('a key change without a rotation is accepted once A’s own operator confirms it', async () => {
      const file = join(dir.path, 'node-c-new-key.pem');
      writeFileSync(file, other.publicKey);
      const printed: string[] = [];
      runNetworkCli(
        ['confirm-key', '--node', 'node-c', '--public-key', file],
        { LORE_DATA_DIR: join(dir.path, 'data-a') } as LoreConfig,
        { stdout: { write: (s: string) => printed.push(s) } },
      );
      expect(printed.join('')).toContain('node node-c');
      const agentsOfC = [
        { handle: 'carol', agentId: agents['carol@c']!.id, card: null },
        { handle: 'dana', agentId: agents['dana@c']!.id, card: null },
      ];
      nc.publish(
        'lore.net.dir.node-c',
        JSON.stringify(
          signAnnouncement(
            { node: 'node-c', publicKey: other.publicKey, at: Date.now(), agents: agentsOfC },
            other,
          ),
        ),
      );
      await until(
        () => nodes.a.lore.directory.nodeKeys('node-c', { fresh: true }),
        (keys) => keys[0] === other.publicKey,
      );
      // B's operator confirmed nothing: B keeps the key it pinned.
      expect((await nodes.b.lore.directory.nodeKeys('node-c', { fresh: true }))[0]).toBe(c.publicKey);

      // From there, a rotation signed by the key A now holds is accepted without anyone's confirmation.
      const next = rotateNodeIdentity(other);
      nc.publish(
        'lore.net.dir.node-c',
        JSON.stringify(
          signAnnouncement(
            {
              node: 'node-c',
              publicKey: next.publicKey,
              rotatedFrom: next.rotatedFrom!,
              at: Date.now(),
              agents: agentsOfC,
            },
            next,
          ),
        ),
      );
      await until(
        () => nodes.a.lore.directory.nodeKeys('node-c', { fresh: true }),
        (keys) => keys[0] === next.publicKey,
      );
    });

    it('tallies 0 attempts through', () => {
      expect(tally.length).toBeGreaterThanOrEqual(7);
      expect(tally.filter((t) => t.got > 0)).toEqual([]);
    });
  });

  it('a node cut off from the hub keeps serving its own agents, and what it asked arrives once the hub is back', async () => {
    await hub.kill('SIGKILL');
    // A's own agents still work with each other.
    const local = (
      await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
        question: 'Sourdough tips?',
        peers: ['dana'],
      })
    ).data.query_id;
    await until(
      () => requested(agent('dana@a')),
      (m) => m[local] !== undefined,
    );
    // A question to B while the hub is away: queued on A's own stream.
    const away = (
      await ok<{ query_id: string }>(agent('alice@a'), 'cqAskQuestion', {
        question: 'Qubit coherence times?',
        peers: ['bob'],
      })
    ).data.query_id;
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await requested(agent('bob@b')))[away]).toBeUndefined();
    await hub.start();
    await until(
      () => requested(agent('bob@b')),
      (m) => m[away] !== undefined,
      60_000,
    );
  }, 120_000);

  it('a node that stops announcing leaves the others’ directories once silent for the TTL', async () => {
    // A's operator confirmed another key for C above: back to C's own, so that A hears C again.
    const cKey = loadNodeIdentity({
      LORE_DATA_DIR: join(dir.path, 'data-c'),
      LORE_NODE_ID: 'node-c',
    } as never).publicKey;
    await nodes.a.lore.network!.confirmKey('node-c', cKey);
    const present = (list: Active['active']) =>
      list.some((x) => x.username === 'carol' && x.node === 'node-c');
    await until(
      async () => ({
        list: await active(agent('alice@a')),
        keys: await nodes.a.lore.directory.nodeKeys('node-c'),
      }),
      (v) => present(v.list) && v.keys[0] === cKey && !nodes.a.lore.network!.departed.has('node-c'),
    );
    await until(() => active(agent('bob@b')), present);
    const leaving = nodes.c;
    nodes.c = { ...leaving, close: async () => {} };
    await leaving.close();
    const gone = (list: Active['active']) => !list.some((x) => x.node === 'node-c');
    // A runs its link in the node, B as its own process: both forget C.
    await until(() => active(agent('alice@a')), gone, 60_000);
    await until(() => active(agent('bob@b')), gone, 60_000);
    // Forgotten for its silence (not for an announcement without its agents).
    expect(nodes.a.lore.network!.departed.has('node-c')).toBe(true);
    const search = await ok<{ agents: Array<{ username: string; node: string }> }>(
      agent('alice@a'),
      'agent_search',
      { query: 'science journalist dancer porto', limit: 20 },
    );
    expect(search.data.agents.filter((x) => x.node === 'node-c')).toEqual([]);
    // A question to a departed agent is refused, naming it.
    const r = await call(agent('alice@a'), 'cqAskQuestion', { question: 'Still there?', peers: ['carol'] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/Error 404: Unknown peer: @carol/);
    // B hosts no dana: A's is the one left, under her bare handle.
    await until(
      () => active(agent('bob@b')),
      (list) => list.some((x) => x.username === 'dana' && x.node === 'node-a'),
    );
  }, 90_000);
});

function receiptsOk(receipts: Array<{ ok: boolean }>): number {
  return receipts.filter((r) => r.ok).length;
}
