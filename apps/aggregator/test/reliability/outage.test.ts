/**
 * No question is lost: in distributed mode (users, queries, approvals and knowledge as separate
 * processes on a private nats-server, behind the aggregator) the knowledge and approvals services
 * are killed for 60 s while questions keep being asked. Every question must end answered or
 * visibly marked for each peer (undeliverable with its reason), or, for the peer who knows
 * nothing, waiting in that peer's inbox as nothing matched (the asker sees it `sent`, as it
 * sees any question waiting for its owner): none is stuck, none vanishes. The retry window is 45 s here (waits of at most 2 s) so that questions
 * asked early in the outage are given up and those asked late are answered once the services
 * return.
 */
import { join } from 'node:path';
import {
  type Client,
  connectClient,
  freePort,
  NatsAuthFixture,
  NatsServerProcess,
  ok,
  tempDir,
} from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnTs } from '../helpers.js';
import { sleep, waitFor } from './support.js';

const OUTAGE_MS = 60_000;
const ASK_EVERY_MS = 5_000;
const RETRY_MINUTES = '0.75';
const DOC = {
  file_name: 'quantum_computing.txt',
  file_content:
    'The latest developments in quantum computing include error-corrected logical qubits. ' +
    'Quantum computing researchers demonstrated below-threshold error rates on superconducting processors in 2024. ' +
    'Quantum error correction keeps logical qubits stable for longer computations.',
};
const FINAL = new Set(['answered', 'undeliverable', 'declined']);

type Peer = { peer: string; status: string; reason?: string };
type Asked = { questions: Array<{ id: string; question: string; peers: Peer[] }>; total: number };

describe('no question is lost while knowledge and approvals are down for 60 s', () => {
  const dir = tempDir('lore-outage-');
  let nats: NatsServerProcess;
  const procs: Record<string, Spawned> = {};
  const ports: Record<string, number> = {};
  let agg: Spawned;
  const auth = new NatsAuthFixture({ nodes: ['outage-test'], dir: dir.path });
  const env = () => ({
    NATS_URL: nats.url,
    LORE_NODE_ID: 'outage-test',
    LORE_DATA_DIR: join(dir.path, 'node'),
    LORE_LOG_LEVEL: 'warn',
    LORE_RATE_LIMITS: 'false',
    LORE_DELIVERY_RETRY_MINUTES: RETRY_MINUTES,
    LORE_DELIVERY_RETRY_MAX_BACKOFF_SECONDS: '2',
  });
  const start = async (service: string) => {
    procs[service] = await spawnTs(
      join(ROOT, `packages/${service}/src/main.ts`),
      [],
      { ...env(), ...auth.env(service), LORE_LOG_LEVEL: 'info', LORE_PORT: String(ports[service]) },
      /"url":"(http[^"]+)"/,
      60_000,
    );
  };

  beforeAll(async () => {
    if (!NatsServerProcess.binaryAvailable()) throw new Error('nats-server is required for the fault tests');
    nats = new NatsServerProcess(await freePort(), join(dir.path, 'nats'), auth);
    await nats.start();
    for (const s of ['users', 'queries', 'approvals', 'knowledge']) ports[s] = await freePort();
    // users first: it creates the node's identity that the others load.
    await start('users');
    await Promise.all(['queries', 'approvals', 'knowledge'].map(start));
    agg = await spawnTs(
      join(ROOT, 'apps/aggregator/src/main.ts'),
      ['start'],
      {
        ...env(),
        LORE_PORT: '0',
        LORE_DATA_DIR: join(dir.path, 'agg'),
        LORE_HEALTH_INTERVAL_MS: '500',
        LORE_SERVICES: Object.keys(ports)
          .map((s) => `${s}=${procs[s]!.url}`)
          .join(','),
      },
      /Lore is running at (\S+)/,
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    await agg?.kill('SIGTERM');
    for (const p of Object.values(procs)) await p.kill('SIGTERM');
    await nats?.kill();
    dir.cleanup();
  });

  it('answers or visibly marks every question for every peer', async () => {
    const url = agg.url;
    const anon = await connectClient(undefined, { url });
    const join_ = async (handle: string): Promise<Client> => {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      return connectClient(undefined, { url, key: r.data.apiKey });
    };
    const alice = await join_('alice');
    const experts = { bob: await join_('bob'), carol: await join_('carol') };
    const dave = await join_('dave'); // knows nothing: nothing is drafted for him, never an invented answer
    for (const c of Object.values(experts)) {
      await ok(c, 'updateKnowledgeSources', DOC);
      await ok(c, 'cqAddAutoApprovalCondition', { sentence: 'Accept all questions from @alice' });
    }
    const ids: string[] = [];
    let n = 0;
    const ask = async () => {
      const r = await ok<{ query_id: string }>(alice, 'cqAskQuestion', {
        question: `What are the latest developments in quantum computing (question ${++n})?`,
        peers: ['bob', 'carol', 'dave'],
      });
      ids.push(r.data.query_id);
    };
    const asked = async () => {
      const r = await ok<Asked>(alice, 'cqListAskedQuestions', { limit: 100 });
      return r.data.questions.filter((q) => ids.includes(q.id));
    };
    /** Dave's inbox: each question he holds, and its status there. */
    const daveHolds = async () =>
      (await ok<Record<string, { status: string }>>(dave, 'cqListRequestedQueries', {})).data;
    /** A peer is settled: answered or marked for the asker, or nothing matched in dave's inbox. */
    const settled = (q: { id: string }, p: Peer, inbox: Record<string, { status: string }>) =>
      FINAL.has(p.status) ||
      (p.peer === 'dave' && p.status === 'sent' && inbox[q.id]?.status === 'no-knowledge');

    // Before the outage: answered straight away.
    await ask();
    await waitFor(
      'the first question answered',
      async () => ({ qs: await asked(), inbox: await daveHolds() }),
      ({ qs, inbox }) => qs[0]!.peers.every((p) => settled(qs[0]!, p, inbox)),
    );

    await procs.knowledge!.kill('SIGKILL');
    await procs.approvals!.kill('SIGKILL');
    const t0 = Date.now();
    const firstDuring = ids.length;
    while (Date.now() - t0 < OUTAGE_MS) {
      await ask();
      await sleep(ASK_EVERY_MS);
    }
    const during = ids.slice(firstDuring);
    const restartAt = Date.now();
    await Promise.all([start('knowledge'), start('approvals')]);
    const backAt = Date.now();
    await ask(); // and one right after they are back

    const { qs: final, inbox } = await waitFor(
      'every peer of every question answered or marked',
      async () => ({ qs: await asked(), inbox: await daveHolds() }),
      ({ qs, inbox }) =>
        qs.length === ids.length && qs.every((q) => q.peers.every((p) => settled(q, p, inbox))),
      90_000,
      500,
    );
    const settledMs = Date.now() - backAt;
    const peers = final.flatMap((q) => q.peers.map((p) => ({ q: q.id, ...p })));
    const by = (s: string) => peers.filter((p) => p.status === s);
    console.info(
      [
        `no question lost (knowledge and approvals killed for 60 s, back ${Math.round((backAt - restartAt) / 1000)} s after their restart began; retry window 45 s):`,
        `  questions asked ${ids.length} (${during.length} during the outage; ${peers.length} question-peer pairs)`,
        `  answered after the outage although asked during it: ${by('answered').filter((p) => during.includes(p.q)).length} pairs`,
        `  answered ${by('answered').length}, undeliverable ${by('undeliverable').length}, nothing matched (in dave's inbox) ${by('sent').length}, declined ${by('declined').length}`,
        `  vanished ${ids.filter((id) => !final.some((q) => q.id === id)).length}; everything settled ${settledMs} ms after the services were back`,
      ].join('\n'),
    );
    const vanished = ids.filter((id) => !final.some((q) => q.id === id));
    expect(vanished).toEqual([]);
    expect(peers.filter((p) => !settled({ id: p.q }, p, inbox))).toEqual([]);
    for (const p of by('undeliverable')) expect(p.reason, `${p.q} @${p.peer}`).toMatch(/could not run/);
    // Both ends of the window are exercised: some given up during the outage, some answered after it.
    expect(by('undeliverable').length).toBeGreaterThan(0);
    const answeredDuring = by('answered').filter((p) => during.includes(p.q));
    expect(answeredDuring.length, 'questions asked during the outage and answered after it').toBeGreaterThan(
      0,
    );
    expect(by('sent').every((p) => p.peer === 'dave' && inbox[p.q]?.status === 'no-knowledge')).toBe(true);
    // The asker reads the reason in the summary too.
    const marked = by('undeliverable')[0]!;
    const summary = await ok(alice, 'cqSummarizeAnswers', { related_question: marked.q });
    expect(summary.text).toMatch(/undeliverable \((Drafting|Evaluation) could not run/);
  }, 300_000);
});
