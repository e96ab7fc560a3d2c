/**
 * The distributed topology on the engines production runs: every service in its own process with
 * its database on a libSQL server (sqld, one database each, `LORE_<SERVICE>_DB_URL=http://…`),
 * migrated by the service at start-up, all on one NATS, behind the aggregator in distributed
 * mode. The knowledge flow (ask, draft, auto-approve, manual accept, summarize) and a community
 * flow run through real MCP clients; afterwards the rows are read back from sqld itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Client,
  call,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  nodeIdentityFile,
  ok,
  type SqldProcess,
  shareNodeIdentity,
  startSqlds,
  tempDir,
} from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUANTUM_TXT, QUESTION, SEEDS } from '../fixtures/knowledge.js';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';

const SERVICES = ['users', 'queries', 'approvals', 'knowledge', 'dens', 'dms', 'showcase', 'docs'] as const;

type Requested = Record<string, { status: string; decision: { decided_by: string } | null; draft: unknown }>;
type Asked = { questions: Array<{ id: string; answers: Array<{ peer: string; text: string }> }> };

const until = <T>(fn: () => Promise<T>, check: (v: T) => boolean, timeout = 30_000) =>
  expect.poll(async () => check(await fn()), { timeout, interval: 100 }).toBe(true);

describe('every service on sqld, distributed, through the aggregator', () => {
  const dir = tempDir('lore-sqld-flows-');
  const auth = new NatsAuthFixture({ nodes: ['sqld-flows'], dir: dir.path });
  let nats: NatsServerProcess;
  let sqlds: Map<string, SqldProcess>;
  const services = new Map<string, Spawned>();
  let agg: Spawned;
  const timings: Record<string, number> = {};
  let anon: Client;
  const agents: Record<string, Client> = {};

  const join_ = async (handle: string, profile: Record<string, unknown> = {}) => {
    const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: handle,
      ...profile,
    });
    agents[handle] = await connectClient(undefined, { url: agg.url, key: r.data.apiKey });
    return agents[handle]!;
  };
  const requested = async (c: Client) => (await ok<Requested>(c, 'cqListRequestedQueries')).data;
  const asked = async (c: Client) => (await ok<Asked>(c, 'cqListAskedQuestions')).data;

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required');
    const t0 = performance.now();
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    [sqlds] = await Promise.all([startSqlds(join(dir.path, 'sqld'), SERVICES), nats.start()]);
    timings.enginesUp = Math.round(performance.now() - t0);
    // The processes of one node share its identity (its signing key).
    const identity = nodeIdentityFile(join(dir.path, 'identity'), 'sqld-flows');
    const common = {
      NATS_URL: nats.url,
      LORE_NODE_ID: 'sqld-flows',
      LORE_LOG_LEVEL: 'info',
      LORE_RATE_LIMITS: 'false',
      LORE_INGEST_OWN_DOCS: 'false',
      LORE_PORT: '0',
    };
    // Two at a time: eight processes compiling at once on a busy 2-core machine starve each other.
    const queue = [...SERVICES];
    const boot = async () => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        const name = s;
        services.set(
          name,
          await spawnTs(
            join(ROOT, `packages/${name}/src/main.ts`),
            [],
            {
              ...common,
              ...auth.env(name),
              LORE_DATA_DIR: shareNodeIdentity(identity, join(dir.path, name)),
              [`LORE_${name.toUpperCase()}_DB_URL`]: sqlds.get(name)!.url,
              // Who may ingest a corpus (the docs flow below).
              ...(name === 'docs' ? { LORE_DOCS_OPERATORS: 'erin' } : {}),
            },
            /"url":"(http[^"]+)"/,
            150_000,
          ),
        );
      }
    };
    await Promise.all([boot(), boot()]);
    timings.servicesUp = Math.round(performance.now() - t0);
    agg = await spawnTs(
      join(ROOT, 'apps/aggregator/src/main.ts'),
      ['start'],
      {
        ...common,
        LORE_LOG_LEVEL: 'warn',
        LORE_DATA_DIR: join(dir.path, 'aggregator'),
        LORE_SERVICES: SERVICES.map((s) => `${s}=${services.get(s)!.url}`).join(','),
      },
      /Lore is running at (\S+)/,
      150_000,
    );
    timings.aggregatorUp = Math.round(performance.now() - t0);
    anon = await connectClient(undefined, { url: agg.url });
  }, 600_000);

  afterAll(async () => {
    console.info(`sqld-flows timings (ms): ${JSON.stringify(timings)}`);
    await agg?.kill();
    await Promise.all([...services.values()].map((s) => s.kill()));
    await Promise.all([...(sqlds?.values() ?? [])].map((s) => s.kill('SIGTERM')));
    await nats?.kill();
    dir.cleanup();
  }, 60_000);

  it('runs the knowledge flow: ask, draft, manual accept, auto-approve, summarize', async () => {
    const alice = await join_('alice', { bio: 'Professor of physics at the University of Geneva.' });
    const bob = await join_('bob', { bio: 'Quantum hardware engineer.' });
    await ok(bob, 'updateKnowledgeSources', {
      file_name: 'quantum_computing.txt',
      file_content: QUANTUM_TXT,
    });

    // No condition yet: bob's node drafts from his knowledge and waits for him.
    let t0 = performance.now();
    const first = (
      await ok<{ query_id: string }>(alice, 'cqAskQuestion', { question: QUESTION, peers: ['bob'] })
    ).data.query_id;
    await until(
      () => requested(bob),
      (m) => m[first]?.status === 'pending' && !!m[first]?.draft,
    );
    timings.askToPendingDraft = Math.round(performance.now() - t0);
    t0 = performance.now();
    await ok(bob, 'cqAcceptQuery', { id: first });
    expect((await call(bob, 'cqAcceptQuery', { id: first })).error?.code).toBe(409);
    await until(
      () => asked(alice),
      (a) => a.questions.find((q) => q.id === first)?.answers.length === 1,
    );
    timings.acceptToAnswerStored = Math.round(performance.now() - t0);

    // With the mission's condition, an academic's scientific question is approved on its own.
    await ok(bob, 'cqAddAutoApprovalCondition', { sentence: SEEDS[0] });
    t0 = performance.now();
    const second = (
      await ok<{ query_id: string }>(alice, 'cqAskQuestion', {
        question: 'Which quantum computing processors showed logical qubits below threshold?',
        peers: ['bob'],
      })
    ).data.query_id;
    await until(
      () => asked(alice),
      (a) => a.questions.find((q) => q.id === second)?.answers.length === 1,
    );
    timings.askToAutoApprovedAnswer = Math.round(performance.now() - t0);
    expect((await requested(bob))[second]).toMatchObject({
      status: 'accepted',
      decision: { decided_by: 'condition:interpreter' },
    });

    const summary = await ok<{ summary: string; answers: Array<{ peer: string }> }>(
      alice,
      'cqSummarizeAnswers',
      {
        related_question: first,
      },
    );
    expect(summary.data.summary).toContain('@bob');
    expect(summary.data.answers.map((a) => a.peer)).toEqual(['bob']);
  }, 120_000);

  it('runs a community flow: den post, direct message, showcase, activity', async () => {
    const carol = await join_('carol', { bio: 'Baker.', interests: ['bread'] });
    const dave = await join_('dave', { bio: 'Miller.' });
    const post = await ok<{ joined: boolean }>(carol, 'den_post', {
      den: 'general',
      title: 'Hello from sqld',
      content: 'Every row of this post lives on a libSQL server.',
    });
    expect(post.data.joined).toBe(true);
    const messages = await ok<{ messages: Array<{ title: string }> }>(dave, 'den_messages', {
      den: 'general',
    });
    expect(messages.data.messages.map((m) => m.title)).toContain('Hello from sqld');
    await ok(carol, 'dm_send', { to: 'dave', content: 'Rye or spelt this week?' });
    const inbox = await ok<{ conversations: Array<{ with: string; unread: number }> }>(
      dave,
      'dm_conversations',
      {
        unread_only: true,
      },
    );
    expect(inbox.data.conversations).toEqual([expect.objectContaining({ with: 'carol', unread: 1 })]);
    await ok(dave, 'showcase_submit', {
      title: 'Stone Mill Planner',
      description: 'Plans milling runs for a small stone mill.',
      category: 'tool',
      url: 'https://example.com/mill',
    });
    const list = await ok<{ projects: Array<{ title: string }> }>(carol, 'showcase_list', {});
    expect(list.data.projects.map((p) => p.title)).toContain('Stone Mill Planner');
    // The users service learned of the post and the message through the bus (its own sqld database).
    await until(
      async () =>
        (await ok<{ recentActivity: Array<{ kind: string }> }>(dave, 'agent_profile', { username: 'carol' }))
          .data.recentActivity,
      (a) => a.some((x) => x.kind === 'dm') && a.some((x) => x.kind === 'post'),
    );
  }, 60_000);

  it('runs a docs flow: an operator ingests a small corpus, another agent searches it', async () => {
    const erin = await join_('erin', { bio: 'Keeps the mill handbook.' });
    const folder = join(dir.path, 'handbook');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'grinding.md'),
      '# Grinding\n\nSet the millstone gap to 0.8 mm for rye flour; spelt needs 1.1 mm.\n',
    );
    writeFileSync(
      join(folder, 'cleaning.md'),
      '# Cleaning\n\nBrush the stones every Friday after the last run.\n',
    );
    const ingest = await ok<{ source: string; added: number }>(erin, 'docs_ingest', {
      inputs: [folder],
      source: 'handbook',
    });
    expect(ingest.data).toMatchObject({ source: 'handbook', added: 2 });
    const found = await ok<{ results: Array<{ content: string; document: { title: string } }> }>(
      agents.carol ?? erin,
      'search_documents',
      { query: 'millstone gap for rye', corpus: 'handbook' },
    );
    expect(found.data.results[0]?.content).toContain('0.8 mm');
    expect(Number((await sqlds.get('docs')!.query('select count(*) from documents'))[0]![0])).toBe(2);
  }, 60_000);

  it('kept every service’s rows in its own database on sqld', async () => {
    const rows = async (service: string, sql: string) =>
      Number((await sqlds.get(service)!.query(sql))[0]![0]);
    expect(await rows('users', 'select count(*) from __drizzle_migrations')).toBeGreaterThan(0);
    expect(
      await rows('users', "select count(*) from agents where handle in ('alice','bob','carol','dave')"),
    ).toBe(4);
    for (const s of SERVICES) {
      expect(await rows(s, 'select count(*) from __lore_kit_migrations'), s).toBeGreaterThan(0);
      // Every event a service wrote to its outbox was relayed to NATS.
      await until(
        () => rows(s, 'select count(*) from lore_outbox where sent_at is null'),
        (n) => n === 0,
      );
    }
  }, 60_000);

  it('kept every service within its NATS permissions (the shipped configuration)', () => {
    expect(nats.output).not.toMatch(/Permissions Violation/);
  });
});
