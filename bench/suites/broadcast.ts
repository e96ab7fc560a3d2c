import { join } from 'node:path';
import { type AllInOne, startAllInOne } from '@lore/aggregator';
import { createDirectory, createLogger } from '@lore/kit';
import { createBus, type EventBus, natsAccess, nodeLocalBus } from '@lore/kit/bus';
import { type Database, openDatabase } from '@lore/kit/db';
import {
  appFetch,
  type Client,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  ok,
} from '@lore/kit/testing';
import { KnowledgeRpc } from '@lore/schema';
import { Corpus } from '../corpus.js';
import { type Proc, pool, ROOT, type Row, row, start, timeIt } from '../lib.js';
import { type Agent, BENCH_ENV, benchConfig, registerAgent, sleep } from '../services.js';
import { startCpuProfile } from '../tools/cpu-profile.js';
import { Spans } from '../trace.js';

/** Agents registered on each of the two nodes (BENCH_BROADCAST_PER_NODE to change). */
const PER_NODE = Number(process.env.BENCH_BROADCAST_PER_NODE ?? 500);
const BASELINE_PER_NODE = 5;
const TARGET_MS = 5000;
const ASKER = 'bench_asker';

const say = (s: string) => process.stderr.write(`  broadcast: ${s}\n`);

/**
 * What each agent holds, by its index on its node: 3 in 5 know the question's topic (their
 * node drafts), the others know other topics (no-knowledge); independently of that, 4 in 10
 * accept the asker's questions automatically, 1 in 10 rejects them, the rest decide by hand (a
 * drafted query stays pending, evaluated).
 */
const onTopic = (i: number) => i % 5 < 3;
const condition = (i: number) => {
  const k = Math.floor(i / 5) % 10;
  return k < 4 ? `Accept all questions from @${ASKER}` : k === 4 ? `Reject questions from @${ASKER}` : null;
};

interface Node {
  name: string;
  /** An MCP client for the node's gateway, with an agent's key (or none). */
  client(key?: string): Promise<Client>;
  /** The node's queries database, read-only use: the recipients' copies and their decisions. */
  queries: Database;
}

interface Settled {
  askMs: number;
  draftedMs: number;
  decidedMs: number;
  askerMs: number;
  decided: number;
  outcomes: Record<string, number>;
}

/**
 * cqAskQuestion to many agents across two nodes on one NATS (a private nats-server): node A in
 * this process (startAllInOne), node B in a child process. Timed from the ask until every
 * recipient's copy is decided, as the queries service defines it: no-knowledge (nothing was
 * drafted), accepted or rejected by the recipient's conditions, or pending with a draft once
 * the conditions were consulted (`evaluated_at` set). Read from both nodes' queries databases;
 * the asker's own view (cqListAskedQuestions) is timed too. Extractive drafts (no LLM).
 */
export async function broadcastSuite(opts: { seconds: number; dataDir: string }): Promise<Row[]> {
  const rows: Row[] = [];
  const corpus = new Corpus(77);
  const topic = corpus.topic(0);
  const question = `How do I configure the ${topic.terms[1]} ${topic.terms[2]} for ${topic.name}?`;
  const auth = new NatsAuthFixture({ nodes: ['bench-a', 'bench-b'], dir: opts.dataDir });
  const nats = new NatsServerProcess(await freePort(), join(opts.dataDir, 'nats'), auth);
  await nats.start();
  const closers: Array<() => Promise<unknown>> = [() => nats.kill()];
  let a: AllInOne | undefined;
  let bus: EventBus | undefined;
  let b: Proc | undefined;
  try {
    // Each node is one process (the all-in-one): it connects as the node user.
    const env = { NATS_URL: nats.url, ...auth.env('node'), LORE_LOG_LEVEL: 'error' };
    const configA = benchConfig(join(opts.dataDir, 'a'), { ...env, LORE_NODE_ID: 'bench-a' });
    bus = await createBus({ natsUrl: nats.url, name: 'lore-bench-a', ...natsAccess(env, () => {}) });
    const directory = await createDirectory(bus);
    // BENCH_TRACE=1: time node A's bus requests, publishes, handlers and directory look-ups.
    const spans = process.env.BENCH_TRACE ? new Spans() : undefined;
    if (spans) {
      const subject = (args: unknown[]) => String(args[0]).replace(/^.*\.(rpc\.)/, '$1');
      spans.wrap(bus, 'request', 'bus.request', subject);
      spans.wrap(bus, 'publish', 'bus.publish', (args) => (args[0] as { subject: string }).subject);
      spans.wrapHandlers(bus, 'reply', 'handler', (s) => String(s).replace(/^.*\.(rpc\.)/, '$1'));
      spans.wrapHandlers(bus, 'subscribe', 'consumer', (o) => (o as { consumer: string }).consumer);
      spans.wrap(directory, 'lookupHandle', 'directory.lookupHandle');
      spans.wrap(directory, 'listHandles', 'directory.listHandles');
      spans.wrap(directory, 'nodeKeys', 'directory.nodeKeys');
    }
    // The whole catalog, as `lore start` runs it (docs does not ingest Lore's own READMEs here).
    a = await startAllInOne(configA, { bus, directory, log: createLogger({ name: 'lore', level: 'error' }) });
    closers.push(async () => {
      await a?.close();
      await bus?.close();
    });
    const dirB = join(opts.dataDir, 'b');
    b = await start(
      join(ROOT, 'bench/targets/lore-node.ts'),
      [],
      { ...BENCH_ENV, ...env, LORE_DATA_DIR: dirB, LORE_NODE_ID: 'bench-b', LORE_PORT: '0' },
      /Lore is running at (\S+)/,
    );
    closers.push(() => b!.stop());
    const appA = a.app;
    const urlB = b.url;
    const openQueries = (dir: string) => openDatabase({ url: `file:${dir}/queries.db`, schema: {} });
    const nodes: Node[] = [
      {
        name: 'a',
        client: (key) => connectClient(appFetch(appA), key ? { key } : {}),
        queries: await openQueries(configA.LORE_DATA_DIR),
      },
      {
        name: 'b',
        client: (key) => connectClient(undefined, key ? { url: urlB, key } : { url: urlB }),
        queries: await openQueries(dirB),
      },
    ];
    closers.push(async () => {
      for (const n of nodes) n.queries.$client.close();
    });

    // ---- the network: PER_NODE agents per node with knowledge and conditions, one asker on A.
    let t0 = performance.now();
    const anonA = await nodes[0]!.client();
    const asker = await registerAgent(anonA, ASKER);
    const peers: Array<Agent & { node: Node; i: number }> = [];
    for (const node of nodes) {
      const anon = node.name === 'a' ? anonA : await node.client();
      const handles = Array.from(
        { length: PER_NODE },
        (_, i) => `peer_${node.name}_${String(i).padStart(4, '0')}`,
      );
      const agents: Array<Agent & { node: Node; i: number }> = new Array(PER_NODE);
      await pool(handles, 8, async (h, i) => {
        agents[i] = { ...(await registerAgent(anon, h)), node, i };
      });
      peers.push(...agents);
    }
    say(`${peers.length + 1} agents registered in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    const texts = peers.map((p) => corpus.markdown(onTopic(p.i) ? topic : corpus.topic(1 + (p.i % 1999)), 3));
    await pool(peers, 8, async (p, k) => {
      const c = await p.node.client(p.key);
      await ok(c, 'updateKnowledgeSources', { file_name: 'notes.md', file_content: texts[k]! });
      const sentence = condition(p.i);
      if (sentence) await ok(c, 'cqAddAutoApprovalCondition', { sentence });
      await c.close();
    });
    say(`knowledge and conditions added in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const askerClient = await nodes[0]!.client(asker.key);

    // What one recipient costs at least, on this machine, with nothing else running: the
    // directory look-up that says the node hosts it (answered by the directory's replica of the
    // JetStream KV bucket, no round trip) and the knowledge retrieval for the draft (a round
    // trip over NATS), measured from node A before any question.
    const local = nodeLocalBus(bus, a.nodeId);
    const sample = peers.filter((p) => p.node === nodes[0]);
    const lookup = await timeIt(200, (i) => directory.lookupHandle(sample[i % sample.length]!.handle));
    const retrieve = await timeIt(200, (i) =>
      local.request(KnowledgeRpc.retrieve.subject, {
        agentId: sample[i % sample.length]!.id,
        query: question,
        limit: 8,
      }),
    );

    /** Ask, then poll both nodes' queries databases until every recipient's copy is decided. */
    const ask = async (peerHandles: string[], expected: number): Promise<Settled> => {
      const t = performance.now();
      const r = await ok<{ query_id: string; peers_reached: number }>(askerClient, 'cqAskQuestion', {
        question,
        peers: peerHandles,
      });
      const askMs = performance.now() - t;
      if (r.data.peers_reached !== expected)
        throw new Error(`asked ${expected} peers, cqAskQuestion reached ${r.data.peers_reached}`);
      const id = r.data.query_id;
      let draftedMs = Number.NaN;
      let decidedMs = Number.NaN;
      let decided = 0;
      const deadline = t + 120_000;
      while (performance.now() < deadline) {
        let rowsSeen = 0;
        decided = 0;
        for (const n of nodes) {
          const res = await n.queries.$client.execute({
            sql: `select count(*) as n, coalesce(sum(status <> 'pending' or evaluated_at is not null), 0) as d
                  from received_queries where id = ?`,
            args: [id],
          });
          rowsSeen += Number(res.rows[0]?.n ?? 0);
          decided += Number(res.rows[0]?.d ?? 0);
        }
        if (Number.isNaN(draftedMs) && rowsSeen >= expected) draftedMs = performance.now() - t;
        if (decided >= expected) {
          decidedMs = performance.now() - t;
          break;
        }
        await sleep(5);
      }
      const outcomes: Record<string, number> = {};
      for (const n of nodes) {
        const res = await n.queries.$client.execute({
          sql: 'select status, count(*) as n from received_queries where id = ? group by status',
          args: [id],
        });
        for (const r of res.rows)
          outcomes[String(r.status)] = (outcomes[String(r.status)] ?? 0) + Number(r.n);
      }
      // The asker's view: every peer that was not left pending shows answered, declined or no-knowledge.
      const settledForAsker = expected - (outcomes.pending ?? 0);
      let askerMs = Number.NaN;
      while (performance.now() < deadline) {
        const v = await ok<{ questions: Array<{ id: string; peers: Array<{ status: string }> }> }>(
          askerClient,
          'cqListAskedQuestions',
          { limit: 5 },
        );
        const peersOf = v.data.questions.find((q) => q.id === id)?.peers ?? [];
        if (peersOf.filter((p) => p.status !== 'sent').length >= settledForAsker) {
          askerMs = performance.now() - t;
          break;
        }
        await sleep(50);
      }
      return { askMs, draftedMs, decidedMs, askerMs, decided, outcomes };
    };

    // Baseline first: the same question to 10 agents (5 a node, the same mix), then to everyone.
    const few = nodes.flatMap((n) =>
      peers.filter((p) => p.node === n && p.i % 13 === 0).slice(0, BASELINE_PER_NODE),
    );
    // Warm-up: one small ask, not timed (JIT, statement caches, consumers' first fetch).
    await ask([few[0]!.handle, few.at(-1)!.handle], 2);
    const base = await ask(
      few.map((p) => p.handle),
      few.length,
    );
    say(`10 agents: ${JSON.stringify(base)}`);
    spans?.reset();
    // BENCH_CPU_PROF=<dir>: CPU profiles of both nodes during the big ask only.
    const profDir = process.env.BENCH_CPU_PROF;
    const profA = profDir ? await startCpuProfile() : undefined;
    if (profDir) {
      b.child.kill('SIGUSR1');
      await sleep(200);
    }
    const all = await ask([], peers.length);
    if (profDir) {
      say(`profile: ${await profA!(profDir, 'broadcast-node-a-and-driver')}`);
      b.child.kill('SIGUSR2');
      await sleep(3000);
    }
    say(`${peers.length} agents: ${JSON.stringify(all)}`);
    if (spans) process.stderr.write(spans.report(`node A spans during the ${peers.length}-agent ask:`));

    const n = peers.length;
    const label = `cqAskQuestion to ${n} agents on 2 nodes (extractive)`;
    const complete = all.decided >= n ? '' : ` — only ${all.decided}/${n} decided in 120 s`;
    rows.push(
      row({
        suite: 'broadcast',
        name: `${label}: ask → every recipient decided${complete}`,
        value: all.decidedMs,
        unit: 'ms',
        baseline: { name: `same ask to ${few.length} agents`, value: base.decidedMs },
        target: `≤ ${TARGET_MS} ms`,
        met: all.decidedMs <= TARGET_MS,
      }),
    );
    rows.push(
      row({
        suite: 'broadcast',
        name: `${label}: ask → every recipient's copy recorded (drafted or no-knowledge)`,
        value: all.draftedMs,
        unit: 'ms',
        baseline: { name: `same ask to ${few.length} agents`, value: base.draftedMs },
      }),
    );
    rows.push(
      row({
        suite: 'broadcast',
        name: `${label}: ask → asker's cqListAskedQuestions shows every settled peer`,
        value: all.askerMs,
        unit: 'ms',
        baseline: { name: `same ask to ${few.length} agents`, value: base.askerMs },
      }),
    );
    rows.push(
      row({
        suite: 'broadcast',
        name: `${label}: the cqAskQuestion call itself`,
        value: all.askMs,
        unit: 'ms',
        baseline: { name: `same ask to ${few.length} agents`, value: base.askMs },
      }),
    );
    rows.push(
      row({
        suite: 'broadcast',
        name: 'idle, per hosted recipient: directory look-up (local replica of the JetStream KV bucket) p50',
        value: lookup.p50,
        unit: 'ms',
      }),
    );
    rows.push(
      row({
        suite: 'broadcast',
        name: `idle, per hosted recipient: ${KnowledgeRpc.retrieve.subject} round trip over NATS p50`,
        value: retrieve.p50,
        unit: 'ms',
      }),
    );
    const o = all.outcomes;
    rows.push(
      row({
        suite: 'broadcast',
        name: `${label}: outcomes accepted/rejected/pending/no-knowledge = ${o.accepted ?? 0}/${o.rejected ?? 0}/${o.pending ?? 0}/${o['no-knowledge'] ?? 0}`,
        value: all.decided,
        unit: 'decided',
      }),
    );
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
  }
  return rows;
}
