import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { createDirectory, EnvelopeSigner, type NodeIdentity } from '@lore/kit';
import { NatsBus } from '@lore/kit/nats';
import { type Client, call, connectClient, ok, tempDir } from '@lore/kit/testing';
import { AnswerShared, type EventDefinition, type EventEnvelope, QuestionAsked } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { QUANTUM_TXT, QUESTION, SEEDS } from './fixtures/knowledge.js';
import { type Spawned, spawnTs } from './helpers.js';

// The tiers' global setup names the tests' NATS (tools/vitest-nats.ts); never a guessed one.
const NATS_URL = process.env.NATS_URL ?? '';
const STREAM = 'LORE_EVENTS';
const NODE = join(import.meta.dirname, 'fixtures/lore-node.ts');

async function reachable(url: string): Promise<boolean> {
  if (!url) return false;
  const u = new URL(url.replace(/^nats:/, 'http:'));
  return new Promise((resolve) => {
    const s = tcpConnect({ host: u.hostname, port: Number(u.port || 4222), timeout: 1000 });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

const natsUp = await reachable(NATS_URL);
if (!natsUp && !process.env.CI)
  console.warn(`two-node test skipped: no NATS at ${NATS_URL} (start nats-server -js or set NATS_URL)`);

describe.runIf(!natsUp && process.env.CI)('two nodes (CI)', () => {
  it('needs a NATS server with JetStream', () => {
    throw new Error(`No NATS at ${NATS_URL}: the two-node test cannot run`);
  });
});

type Requested = Record<
  string,
  {
    status: string;
    from: string;
    draft: { text: string; citations: Array<{ source: string }> } | null;
    decision: { decided_by: string; condition: string | null } | null;
    closest?: Array<{ source: string; excerpt: string; score: number }>;
  }
>;
type Asked = {
  questions: Array<{
    id: string;
    peers: Array<{ peer: string; status: string }>;
    answers: Array<{ peer: string; text: string }>;
  }>;
};

const until = <T>(fn: () => Promise<T>, check: (v: T) => boolean, timeout = 20_000) =>
  expect.poll(async () => check(await fn()), { timeout, interval: 100 }).toBe(true);

/** Outside a test (hooks), where expect.poll is not available: vi.waitFor retries until it holds. */
const waitFor = (fn: () => Promise<boolean>, timeout: number) =>
  vi.waitFor(
    async () => {
      if (!(await fn())) throw new Error(`not settled within ${timeout} ms`);
    },
    { timeout, interval: 200 },
  );

describe.skipIf(!natsUp)('two nodes on one NATS network', () => {
  // Everything this run creates on the shared NATS server carries this suffix, and is removed afterwards.
  const run = randomBytes(3).toString('hex');
  const h = (name: string) => `${name}_${run}`;
  const ids = { a: `node-a-${run}`, b: `node-b-${run}`, rogue: `node-rogue-${run}` };
  const dirs = { a: tempDir(), b: tempDir() };
  const forgedSeqs: number[] = [];
  const agentIds: Record<string, string> = {};
  const keys: Record<string, string> = {};
  let nodeA: Spawned;
  let nodeB: Spawned;
  let nats: NatsBus;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let queryId: string;
  const timings: Record<string, number> = {};

  // JetStream's API over plain request/reply (the test reaches NATS through the kit's connection).
  const js = async (subject: string, body: unknown = {}) => {
    const msg = await nats.connection.request(subject, JSON.stringify(body), { timeout: 5000 });
    return msg.json<Record<string, unknown>>();
  };
  const consumers = () =>
    ['drafter', 'answers', 'withheld'].flatMap((p) => [`queries-${p}-${ids.a}`, `queries-${p}-${ids.b}`]);
  /** Both nodes have handled everything on the stream (the history included). */
  const settled = async () => {
    for (const c of consumers()) {
      const info = await js(`$JS.API.CONSUMER.INFO.${STREAM}.${c}`);
      if (info.error || Number(info.num_pending) > 0 || Number(info.num_ack_pending) > 0) return false;
    }
    return true;
  };
  const dropped = async (node: Spawned, reason: string) => {
    const text = await (await fetch(node.url.replace(/\/mcp$/, '/metrics'))).text();
    return Number(
      new RegExp(`lore_envelopes_dropped_total\\{service="queries",reason="${reason}"\\} (\\d+)`).exec(
        text,
      )?.[1] ?? 0,
    );
  };
  const publish = async (e: EventEnvelope) => {
    const ack = await js(e.subject, e);
    forgedSeqs.push(Number(ack.seq));
  };
  const register = async (node: Spawned, name: string, profile: Record<string, unknown> = {}) => {
    const anon = await connectClient(undefined, { url: node.url });
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username: h(name),
      email: `${name}@example.com`,
      displayName: name,
      ...profile,
    });
    agentIds[h(name)] = r.data.agent.id;
    keys[h(name)] = r.data.apiKey;
    return connectClient(undefined, { url: node.url, key: r.data.apiKey });
  };
  const requested = async (c: Client, args = {}) =>
    (await ok<Requested>(c, 'cqListRequestedQueries', args)).data;
  const asked = async (c: Client) => (await ok<Asked>(c, 'cqListAskedQuestions')).data;

  beforeAll(async () => {
    nats = await NatsBus.connect({ url: NATS_URL, name: `two-nodes-test-${run}` });
    const env = (dir: string, id: string) => ({
      LORE_DATA_DIR: dir,
      LORE_NODE_ID: id,
      NATS_URL,
      // The shared development NATS has no authorization (the shipped one is tested in test:faults).
      LORE_NATS_INSECURE: 'true',
      LORE_PORT: '0',
      LORE_LOG_LEVEL: 'error',
      LORE_RATE_LIMITS: 'false',
      LORE_LLM_BASE_URL: '',
    });
    const t0 = performance.now();
    [nodeA, nodeB] = await Promise.all([
      spawnTs(NODE, [], env(dirs.a.path, ids.a), /Lore is running at (\S+)/, 60_000),
      spawnTs(NODE, [], env(dirs.b.path, ids.b), /Lore is running at (\S+)/, 60_000),
    ]);
    timings.nodesUp = Math.round(performance.now() - t0);
    // A new node reads the stream's history with its own consumers; let that finish first.
    await waitFor(settled, 60_000);
    timings.historyReplayed = Math.round(performance.now() - t0);
    alice = await register(nodeA, 'alice', { bio: 'Professor of physics at the University of Geneva.' });
    carol = await register(nodeA, 'carol', { bio: 'Baker.' });
    bob = await register(nodeB, 'bob', { bio: 'Quantum hardware engineer.' });
  }, 120_000);

  afterAll(async () => {
    console.info(`two-nodes timings (ms): ${JSON.stringify(timings)}`);
    await Promise.all([nodeA?.kill('SIGTERM'), nodeB?.kill('SIGTERM')]);
    if (nats) {
      const names = (await js(`$JS.API.CONSUMER.NAMES.${STREAM}`, { offset: 0 })).consumers as
        | string[]
        | null;
      for (const c of names ?? []) if (c.includes(run)) await js(`$JS.API.CONSUMER.DELETE.${STREAM}.${c}`);
      for (const seq of forgedSeqs) await js(`$JS.API.STREAM.MSG.DELETE.${STREAM}`, { seq, no_erase: true });
      for (const handle of Object.keys(agentIds))
        for (const bucket of ['lore_handles', 'lore_agents'])
          await js(`$JS.API.STREAM.PURGE.KV_${bucket}`, { filter: `$KV.${bucket}.${handle}` });
      for (const id of Object.values(ids))
        await js('$JS.API.STREAM.PURGE.KV_lore_nodes', { filter: `$KV.lore_nodes.${id}` });
      await nats.close();
    }
    dirs.a.cleanup();
    dirs.b.cleanup();
  }, 60_000);

  it('knows every agent network-wide: a handle is claimed once', async () => {
    const anonB = await connectClient(undefined, { url: nodeB.url });
    const r = await call(anonB, 'agent_register', {
      username: h('alice'),
      email: 'x@example.com',
      displayName: 'x',
    });
    expect(r.error?.code).toBe(409);
    const unknown = await call(alice, 'cqAskQuestion', {
      question: QUESTION,
      peers: [h('bob'), h('nobody')],
    });
    expect(unknown.error?.code).toBe(404);
    expect(unknown.error?.data?.peers).toEqual([h('nobody')]);
  });

  it('discovers across nodes: A’s discovery tools include B’s agents, marked with their node', async () => {
    // Registered on B just now: A must see it within 5 s, from the directory shared over JetStream KV.
    const t0 = Date.now();
    await register(nodeB, 'dana', {
      bio: 'Cryogenics engineer for superconducting qubits.',
      skills: [{ name: 'cryogenics', level: 'expert' }],
      interests: ['quantum computing'],
      location: 'Delft',
      capabilities: { can_analyze_data: true },
    });
    const activeOnA = async () =>
      (
        await ok<{ active: Array<{ username: string; node: string }> }>(alice, 'cqGetActiveUsers', {
          flag: true,
        })
      ).data.active;
    await until(activeOnA, (list) => list.some((a) => a.username === h('dana') && a.node === ids.b), 5_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect((await activeOnA()).find((a) => a.username === h('bob'))?.node).toBe(ids.b);

    const described = await ok<{ descriptions: string[] }>(alice, 'cqGetUserDescriptions', {
      user_id: `@${h('dana')}`,
    });
    expect(described.data.descriptions).toContain(`Hosted on node ${ids.b}`);
    expect(described.data.descriptions[0]).toMatch(/Cryogenics engineer/);

    const found = await ok<{ agents: Array<{ username: string; node?: string }> }>(alice, 'discover_agents', {
      topic: 'cryogenics',
      limit: 20,
    });
    expect(found.data.agents.find((a) => a.username === h('dana'))?.node).toBe(ids.b);

    // agent_search spans the network too, on every criterion of the public profile.
    for (const criteria of [
      { skills: ['cryogenics'] },
      { query: `${h('dana')} superconducting` },
      { location: 'delft', capabilities: ['can_analyze_data'] },
    ]) {
      const r = await ok<{ agents: Array<{ username: string; node: string }>; total: number }>(
        alice,
        'agent_search',
        { ...criteria, limit: 100 },
      );
      expect(r.data.agents.find((a) => a.username === h('dana'))?.node, JSON.stringify(criteria)).toBe(ids.b);
      expect(r.text).toContain(`@${h('dana')} - dana (node ${ids.b})`);
    }
    // A's own agents come first and carry no node mark; criteria still exclude B's agents that do not match.
    const local = await ok<{ agents: Array<{ username: string; node: string }> }>(alice, 'agent_search', {
      query: h('alice'),
    });
    expect(local.data.agents.map((a) => [a.username, a.node])).toEqual([[h('alice'), ids.a]]);
    expect(local.text).not.toContain('(node ');
    const none = await ok<{ total: number }>(alice, 'agent_search', {
      skills: ['cryogenics'],
      location: 'Lisbon',
    });
    expect(none.data.total).toBe(0);
  });

  it("shows B's agents on A's console network page, with B's node id", async () => {
    const base = nodeA.url.replace(/\/mcp$/, '');
    // The node runs under tsx from the repository root, as `pnpm dev` does: the console must render there too.
    const form = await fetch(`${base}/console/sign-in`, { headers: { accept: 'text/html' } });
    expect(form.status).toBe(200);
    const pre = form.headers
      .getSetCookie()
      .find((l) => l.startsWith('lore_console_pre='))!
      .split(';')[0]!;
    const formHtml = await form.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(formHtml)![1]!;
    const signedIn = await fetch(`${base}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: pre, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, key: keys[h('alice')]! }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers
      .getSetCookie()
      .find((l) => l.startsWith('lore_console='))!
      .split(';')[0]!;
    const page = await fetch(`${base}/console/network`, {
      headers: { cookie: session, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    const rowOf = (handle: string) =>
      html.split('<tr>').find((r) => r.includes(`<strong>@${handle}</strong>`));
    expect(rowOf(h('bob'))).toContain(`<code>${ids.b}</code>`);
    expect(rowOf(h('dana'))).toContain(`<code>${ids.b}</code>`);
    // A's own agents are marked as this node's.
    expect(rowOf(h('carol'))).toContain('this node');
    expect(rowOf(h('carol'))).not.toContain(ids.b);
  });

  it('carries a profile change across nodes: bob’s new bio, updated on B, is what A shows within 5 s', async () => {
    const bio = `Dilution refrigerators and qubit readout (${run}).`;
    const describedOnA = async () =>
      (await ok<{ descriptions: string[] }>(alice, 'cqGetUserDescriptions', { user_id: `@${h('bob')}` })).data
        .descriptions;
    expect((await describedOnA()).join('\n')).not.toContain(bio);
    const t0 = Date.now();
    await ok(bob, 'agent_update', { username: h('bob'), bio });
    await until(describedOnA, (d) => d.join('\n').includes(bio), 5_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const searched = await ok<{ agents: Array<{ username: string; node: string }> }>(alice, 'agent_search', {
      query: 'refrigerators',
      limit: 100,
    });
    expect(searched.data.agents.find((a) => a.username === h('bob'))?.node).toBe(ids.b);
  });

  it('runs the mission scenario across nodes: alice on A asks bob on B (and carol on A)', async () => {
    expect(
      (
        await ok(bob, 'updateKnowledgeSources', {
          file_name: 'quantum_computing.txt',
          file_content: QUANTUM_TXT,
        })
      ).text,
    ).toContain("RAG resource 'quantum_computing.txt' added successfully and vector database refreshed.");
    await ok(carol, 'updateKnowledgeSources', {
      file_name: 'sourdough.md',
      file_content: 'Feed the starter daily and bake the loaf hot with steam.',
    });

    const t0 = performance.now();
    const asked0 = await ok<{ query_id: string }>(alice, 'cqAskQuestion', {
      question: QUESTION,
      peers: [h('bob'), h('carol')],
    });
    queryId = asked0.data.query_id;
    expect(asked0.text).toContain(`call cqSummarizeAnswers with related_question "${queryId}"`);

    // Node B drafts from bob's knowledge, which only node B holds.
    await until(
      () => requested(bob),
      (m) => m[queryId]?.status === 'pending',
    );
    timings.askOnAToPendingDraftOnB = Math.round(performance.now() - t0);
    const q = (await requested(bob))[queryId]!;
    expect(q.from).toBe(h('alice'));
    expect(q.draft?.citations[0]?.source).toBe('quantum_computing.txt');
    expect(q.draft?.text).toMatch(/quantum computing/i);

    // Carol, on A, has nothing relevant: no draft; it waits in her inbox as nothing matched, and
    // alice sees it waiting, as she sees bob's.
    await until(
      () => requested(carol),
      (m) => m[queryId]?.status === 'no-knowledge',
    );
    expect((await asked(alice)).questions[0]?.peers.find((p) => p.peer === h('carol'))?.status).toBe('sent');
    // Nobody on A can see or settle bob's query (it lives on B; A only holds carol's copy).
    expect((await requested(alice))[queryId]).toBeUndefined();
    expect((await call(alice, 'cqAcceptQuery', { id: queryId })).error?.code).toBe(403);

    const edited = `${q.draft!.text}\n\nReviewed by bob on node B.`;
    expect((await ok(bob, 'cqUpdateEditAnswer', { query_id: queryId, new_answer: edited })).text).toMatch(
      /^Successfully updated answer for query_id/,
    );
    const t1 = performance.now();
    expect((await ok<{ content: string }>(bob, 'cqAcceptQuery', { id: queryId })).data.content).toBe(
      `Question '${QUESTION}' has been accepted.`,
    );
    expect((await call(bob, 'cqAcceptQuery', { id: queryId })).error?.code).toBe(409);
    await until(
      () => asked(alice),
      (a) => a.questions[0]?.answers.length === 1,
    );
    timings.acceptOnBToAnswerOnA = Math.round(performance.now() - t1);
    expect((await asked(alice)).questions[0]!.answers[0]).toMatchObject({ peer: h('bob'), text: edited });

    const summary = await ok<{ summary: string; peers: Array<{ peer: string; status: string }> }>(
      alice,
      'cqSummarizeAnswers',
      { related_question: QUESTION },
    );
    expect(summary.data.summary).toContain(`@${h('bob')}`);
    const sentences = QUANTUM_TXT.split(/(?<=\.)\s+/).filter((s) => s.length > 40);
    expect(sentences.some((s) => summary.data.summary.includes(s.trim().slice(0, 50)))).toBe(true);
    expect(summary.data.peers.map((p) => p.status).sort()).toEqual(['answered', 'sent']);
  }, 60_000);

  it('keeps the passages closest to a question nothing matched on the owner’s node: bob on B sees them, nothing reaches A', async () => {
    // Everything on the network while the question is handled: events every node consumes, and
    // requests of every node (B's own services pass passages to each other on B's request subjects).
    const seen: Array<{ subject: string; text: string }> = [];
    const decoder = new TextDecoder();
    const sub = nats.connection.subscribe('>', {
      callback: (_err, m) => {
        seen.push({ subject: m.subject, text: decoder.decode(m.data) });
      },
    });
    // Shares one word ("processor") with bob's note and nothing of its subject.
    const question = `Which food processor should I buy to knead rye sourdough dough (${run})?`;
    const id = (await ok<{ query_id: string }>(alice, 'cqAskQuestion', { question, peers: [h('bob')] })).data
      .query_id;
    await until(
      () => requested(bob),
      (m) => m[id]?.status === 'no-knowledge',
    );
    const closest = (await requested(bob))[id]!.closest!;
    expect(closest.length).toBeGreaterThan(0);
    for (const c of closest) expect(c.source).toBe('quantum_computing.txt');
    expect((await asked(alice)).questions.find((q) => q.id === id)?.peers[0]?.status).toBe('sent');
    await nats.connection.flush();
    sub.unsubscribe();

    const excerpts = closest.map((c) => c.excerpt.replace(/…/g, '').trim().slice(0, 40));
    // What node A receives: the network's events, and requests addressed to A.
    const toA = seen.filter((m) => m.subject.startsWith('lore.') || m.subject.includes(`.node.${ids.a}`));
    expect(toA.some((m) => m.text.includes(question.slice(0, 40)))).toBe(true);
    for (const e of excerpts) expect(toA.filter((m) => m.text.includes(e)).map((m) => m.subject)).toEqual([]);
    // And what alice can read of this question on A (her earlier question has bob's answer).
    const onA = JSON.stringify([
      (await asked(alice)).questions.find((q) => q.id === id),
      (await requested(alice))[id] ?? null,
      (await call(alice, 'cqSummarizeAnswers', { related_question: id })).data,
    ]);
    expect(onA).toContain(question);
    expect(onA).not.toMatch(/closest|quantum_computing\.txt/);
    for (const e of excerpts) expect(onA).not.toContain(e);
  }, 60_000);

  it('drops on B a broadcast from A that matched nothing there, and keeps it where it matched', async () => {
    const question = `How hot should I bake a sourdough loaf, and with steam (${run})?`;
    const r = await ok<{ query_id: string; broadcast: boolean }>(alice, 'cqAskQuestion', {
      question,
      peers: [],
    });
    expect(r.data.broadcast).toBe(true);
    const id = r.data.query_id;
    // Carol on A holds the sourdough note: her copy waits for her with a draft.
    await until(
      () => requested(carol),
      (m) => m[id]?.status === 'pending',
    );
    expect((await requested(carol))[id]?.draft?.citations[0]?.source).toBe('sourdough.md');
    // Bob on B had nothing relevant: once B has handled the event, his inbox does not hold it.
    await waitFor(settled, 20_000);
    expect((await requested(bob))[id]).toBeUndefined();
    // Alice sees no peer of a broadcast until an answer is released.
    expect((await asked(alice)).questions.find((q) => q.id === id)?.peers).toEqual([]);
  }, 30_000);

  it('lets B’s policy decide: a seed condition accepts alice’s question using her profile from A', async () => {
    await ok(bob, 'cqAddAutoApprovalCondition', { sentence: SEEDS[0] });
    const t0 = performance.now();
    const id = (
      await ok<{ query_id: string }>(alice, 'cqAskQuestion', {
        question: 'Which quantum computing processors showed logical qubits?',
        peers: [h('bob')],
      })
    ).data.query_id;
    await until(
      () => asked(alice),
      (a) => a.questions.find((q) => q.id === id)?.answers.length === 1,
    );
    timings.autoApprovedRoundTrip = Math.round(performance.now() - t0);
    expect((await requested(bob))[id]?.decision).toMatchObject({
      decided_by: 'condition:interpreter',
      condition: SEEDS[0],
    });
  }, 30_000);

  it('drops forged envelopes (bad signature, or an agent not hosted by the signer) and counts them in /metrics', async () => {
    await until(settled, (s) => s);
    const before = {
      badA: await dropped(nodeA, 'bad-signature'),
      badB: await dropped(nodeB, 'bad-signature'),
      hostA: await dropped(nodeA, 'sender-not-hosted-by-signer'),
      hostB: await dropped(nodeB, 'sender-not-hosted-by-signer'),
    };
    const aliceAnswers = JSON.stringify(await asked(alice));

    // A rogue node joins the directory (anyone on the NATS network can) and speaks for others.
    const keys = generateKeyPairSync('ed25519', {
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const rogue: NodeIdentity = { id: ids.rogue, ...keys };
    await (await createDirectory(nats)).registerNode(rogue.id, rogue.publicKey);
    const envelope = <E extends EventDefinition>(
      def: E,
      payload: z.input<E['payload']>,
      producer: string,
    ): EventEnvelope => ({
      id: randomUUID(),
      subject: def.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: producer, service: 'queries' },
      payload: def.payload.parse(payload),
    });
    const question = (qid: string, askerNode: string) => ({
      questionId: qid,
      question: 'Send me everything you know about quantum computing qubits',
      askedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      asker: { id: agentIds[h('alice')]!, handle: h('alice'), node: askerNode, profile: null },
      recipients: [{ id: agentIds[h('bob')]!, handle: h('bob'), node: ids.b }],
    });

    // 1. Claims to come from node A, signed with another key: the signature fails.
    const badSig = new EnvelopeSigner({ ...rogue, id: ids.a }).sign(
      envelope(QuestionAsked, question(`qry-forgeda${run}`, ids.a), ids.a),
    );
    // 2. Validly signed by the rogue node, but alice is hosted by A, not by the rogue.
    const impostor = new EnvelopeSigner(rogue).sign(
      envelope(QuestionAsked, question(`qry-forgedb${run}`, ids.rogue), ids.rogue),
    );
    // 3. An answer "from bob" to alice's real question, signed by the rogue node.
    const fakeAnswer = new EnvelopeSigner(rogue).sign(
      envelope(
        AnswerShared,
        {
          questionId: queryId,
          askerId: agentIds[h('alice')]!,
          askerHandle: h('alice'),
          recipientId: agentIds[h('bob')]!,
          recipientHandle: h('bob'),
          text: 'Forged: quantum computers already break all encryption.',
          citations: [],
          strategy: 'manual',
          revision: 99,
          sharedAt: new Date().toISOString(),
        },
        ids.rogue,
      ),
    );
    for (const e of [badSig, impostor, fakeAnswer]) await publish(e);
    await until(settled, (s) => s);

    // Every node checks every question it reads; an answer only the asker's node (A) checks.
    expect(await dropped(nodeA, 'bad-signature')).toBe(before.badA + 1);
    expect(await dropped(nodeB, 'bad-signature')).toBe(before.badB + 1);
    expect(await dropped(nodeA, 'sender-not-hosted-by-signer')).toBe(before.hostA + 2);
    expect(await dropped(nodeB, 'sender-not-hosted-by-signer')).toBe(before.hostB + 1);
    const bobs = await requested(bob);
    expect(bobs[`qry-forgeda${run}`]).toBeUndefined();
    expect(bobs[`qry-forgedb${run}`]).toBeUndefined();
    expect(JSON.stringify(await asked(alice))).toBe(aliceAnswers);
  }, 60_000);
});
