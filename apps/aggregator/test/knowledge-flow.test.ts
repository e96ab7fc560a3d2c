import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvelopeSigner, type LoreConfig, loadNodeIdentity } from '@lore/kit';
import { appFetch, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { AnswerShared, statsRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';
import { servicesNamed } from '../src/services.js';
import { QUANTUM_TXT, QUESTION, SEEDS } from './fixtures/knowledge.js';

const SOURDOUGH_MD = `# Sourdough

Feed the starter with equal weights of flour and water every day. Bake the loaf at 250 degrees for twenty minutes with steam, then forty minutes without.
`;

const PYTHON_MD = `# Python lists

To reverse a list in Python, call list.reverse() to reverse it in place, or use slicing with list[::-1] to get a reversed copy of the list. The reversed() built-in returns an iterator that walks the list in reverse order.
`;

const ESPRESSO_MD = `# Espresso

An espresso shot should take 25 to 30 seconds to brew. Grind finer when the espresso shot runs faster than that, and coarser when it runs slower.
`;

type Requested = Record<
  string,
  {
    id: string;
    from: string;
    question: string;
    status: string;
    timestamp: string;
    untrusted: boolean;
    draft: {
      text: string;
      citations: Array<{ source: string; excerpt: string }>;
      strategy: string;
      edited: boolean;
    } | null;
    decision: { reason: string; decided_by: string; condition: string | null } | null;
  }
>;
type Asked = {
  questions: Array<{
    id: string;
    question: string;
    peers: Array<{ peer: string; status: string }>;
    answers: Array<{ peer: string; text: string; strategy: string }>;
  }>;
};

const sleepUntil = <T>(fn: () => Promise<T>, check: (v: T) => boolean, timeout = 15_000) =>
  expect.poll(async () => check(await fn()), { timeout, interval: 50 }).toBe(true);

const SERVICES = servicesNamed('users', 'knowledge', 'queries', 'approvals');

async function startLore(config: LoreConfig) {
  const lore = await startAllInOne(config, { services: SERVICES });
  const anon = await connectClient(appFetch(lore.app));
  const join = async (username: string, profile: Record<string, unknown> = {}) => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username,
      email: `${username}@example.com`,
      displayName: username,
      ...profile,
    });
    return {
      id: r.data.agent.id,
      handle: username,
      key: r.data.apiKey,
      c: await connectClient(appFetch(lore.app), { key: r.data.apiKey }),
    };
  };
  return { lore, anon, join };
}
type Agent = Awaited<ReturnType<Awaited<ReturnType<typeof startLore>>['join']>>;

const requested = async (a: Agent, args: Record<string, unknown> = {}) =>
  (await ok<Requested>(a.c, 'cqListRequestedQueries', args)).data;
const asked = async (a: Agent) => (await ok<Asked>(a.c, 'cqListAskedQuestions')).data;
const addSource = (a: Agent, file_name: string, file_content: string) =>
  ok(a.c, 'updateKnowledgeSources', { file_name, file_content });
const ask = async (a: Agent, question: string, peers: string[]) =>
  (await ok<{ query_id: string }>(a.c, 'cqAskQuestion', { question, peers })).data.query_id;

describe('the knowledge flow through the aggregator (mission examples, in order)', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let alice: Agent;
  let bob: Agent;
  let carol: Agent;
  let queryId: string;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const s = await startLore(testConfig(dir.path, { LORE_RATE_LIMITS: 'false' }));
    lore = s.lore;
    alice = await s.join('alice', { bio: 'Professor of physics at the University of Geneva.' });
    bob = await s.join('bob', { bio: 'Quantum hardware engineer.' });
    carol = await s.join('carol', { bio: 'Baker.' });
  });
  afterAll(async () => {
    console.info(`knowledge-flow timings (ms): ${JSON.stringify(timings)}`);
    await lore.close();
    dir.cleanup();
  });

  it('serves the queries and approvals tools in the one catalog', async () => {
    const names = (await alice.c.listTools()).tools.map((t) => t.name);
    for (const n of [
      'cqAskQuestion',
      'cqListRequestedQueries',
      'cqSummarizeAnswers',
      'cqUpdateEditAnswer',
      'cqListAskedQuestions',
      'cqAddAutoApprovalCondition',
      'cqRemoveAutoApprovalCondition',
      'cqListAutoApprovalConditions',
      'cqAcceptQuery',
      'cqRejectQuery',
      'updateKnowledgeSources',
    ])
      expect(names).toContain(n);
  });

  it('1. bob adds quantum_computing.txt', async () => {
    const r = await addSource(bob, 'quantum_computing.txt', QUANTUM_TXT);
    expect(r.text).toContain(
      "RAG resource 'quantum_computing.txt' added successfully and vector database refreshed.",
    );
    await addSource(carol, 'sourdough.md', SOURDOUGH_MD);
  });

  it('2. alice asks bob and carol', async () => {
    const t0 = performance.now();
    const r = await ok<{ query_id: string; peers_reached: number }>(alice.c, 'cqAskQuestion', {
      question: QUESTION,
      peers: ['bob', 'carol'],
    });
    timings.ask = Math.round(performance.now() - t0);
    queryId = r.data.query_id;
    expect(r.text).toMatch(/^Query request sent /);
    expect(r.text).toContain('call cqSummarizeAnswers with related_question "qry-');
    expect(r.data.peers_reached).toBe(2);
    await sleepUntil(
      () => requested(bob),
      (m) => m[queryId]?.status === 'pending',
    );
    timings.askToPendingDraft = Math.round(performance.now() - t0);
  });

  it('3. bob’s query is pending with a draft that cites his knowledge', async () => {
    const m = await requested(bob, { status: 'pending' });
    const q = m[queryId]!;
    expect(Object.keys(m)).toEqual([queryId]);
    expect(q).toMatchObject({
      id: queryId,
      from: 'alice',
      question: QUESTION,
      status: 'pending',
      untrusted: true,
    });
    expect(Date.parse(q.timestamp)).not.toBeNaN();
    expect(q.draft?.strategy).toBe('extractive');
    expect(q.draft!.citations.length).toBeGreaterThan(0);
    for (const c of q.draft!.citations) {
      expect(c.source).toBe('quantum_computing.txt');
      expect(QUANTUM_TXT.replace(/\s+/g, ' ')).toContain(c.excerpt.replace(/…/g, '').trim().slice(0, 60));
    }
    expect(q.draft!.text).toMatch(/\[1\]/);
    expect(q.decision?.reason).toMatch(/No auto-approval conditions/);
  });

  it('4. carol, with no relevant knowledge, has it in her inbox as nothing matched; the asker sees it waiting', async () => {
    await sleepUntil(
      () => requested(carol),
      (m) => m[queryId]?.status === 'no-knowledge',
    );
    expect((await requested(carol))[queryId]).toMatchObject({ status: 'no-knowledge', draft: null });
    expect((await asked(alice)).questions[0]?.peers.find((p) => p.peer === 'carol')?.status).toBe('sent');
    expect(Object.keys(await requested(carol, { status: 'pending' }))).toEqual([]);
  });

  it('5. bob edits his answer and accepts it; a second accept is refused', async () => {
    const draft = (await requested(bob))[queryId]!.draft!.text;
    const edited = `${draft}\n\nReviewed by Bob: Willow and Quantinuum's logical qubits are the ones to watch.`;
    const e = await ok(bob.c, 'cqUpdateEditAnswer', { query_id: queryId, new_answer: edited });
    expect(e.text).toMatch(new RegExp(`^Successfully updated answer for query_id '${queryId}'\\.`));
    const t0 = performance.now();
    const a = await ok<{ content: string }>(bob.c, 'cqAcceptQuery', { id: queryId });
    expect(a.data.content).toBe(`Question '${QUESTION}' has been accepted.`);
    const again = await call(bob.c, 'cqAcceptQuery', { id: queryId });
    expect(again.error?.code).toBe(409);
    expect((await call(bob.c, 'cqRejectQuery', { id: queryId })).error?.code).toBe(409);
    await sleepUntil(
      () => asked(alice),
      (x) => x.questions[0]?.answers.length === 1,
    );
    timings.acceptToAnswerStored = Math.round(performance.now() - t0);
    const answers = (await asked(alice)).questions[0]!.answers;
    expect(answers).toEqual([expect.objectContaining({ peer: 'bob', text: edited })]);
    expect((await requested(bob, { status: 'accepted' }))[queryId]?.decision).toMatchObject({
      decided_by: 'manual:@bob',
    });
  });

  it('6. alice’s summary quotes bob’s knowledge and names bob', async () => {
    const t0 = performance.now();
    const r = await ok<{
      summary: string;
      strategy: string;
      answers: Array<{ peer: string }>;
      peers: Array<{ peer: string; status: string }>;
      pending: number;
    }>(alice.c, 'cqSummarizeAnswers', { related_question: QUESTION, detailed_answer: 1 });
    timings.summary = Math.round(performance.now() - t0);
    expect(r.data.summary).toContain('@bob');
    const sentences = QUANTUM_TXT.split(/(?<=\.)\s+/).filter((s) => s.length > 40);
    expect(sentences.some((s) => r.data.summary.includes(s.trim().slice(0, 50)))).toBe(true);
    expect(r.data.strategy).toBe('extractive');
    expect(r.text).toMatch(/written by extraction/);
    expect(r.data.answers.map((a) => a.peer)).toEqual(['bob']);
    expect(r.data.peers).toEqual([
      expect.objectContaining({ peer: 'bob', status: 'answered' }),
      expect.objectContaining({ peer: 'carol', status: 'sent' }),
    ]);
    expect(r.data.pending).toBe(1);
  });

  it('summarises with the client’s own model when it offers sampling, in both protocol eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const c = await connectClient(appFetch(lore.app), {
        key: alice.key,
        era,
        capabilities: { sampling: {} },
      });
      const seen: string[] = [];
      c.setRequestHandler('sampling/createMessage', async (req) => {
        seen.push((req.params.messages[0]!.content as { text: string }).text);
        return {
          role: 'assistant',
          model: 'client-model',
          content: { type: 'text', text: '- @bob: Willow showed below-threshold error correction [1].' },
        };
      });
      const r = await call<{ strategy: string; summary: string }>(c, 'cqSummarizeAnswers', {
        related_question: queryId,
      });
      expect(r.text, era).not.toMatch(/^Error/);
      expect(r.data.strategy, era).toBe('sampling');
      expect(r.data.summary).toBe('- @bob: Willow showed below-threshold error correction [1].');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/<passage n="1" id="[^"]+" source="bob">/);
    }
  });

  it('lets nobody else list, accept, reject or edit a query addressed to bob', async () => {
    const dave = await connectClient(appFetch(lore.app));
    expect((await call(dave, 'cqListRequestedQueries', {})).error?.code).toBe(401);
    expect(Object.keys(await requested(alice))).toEqual([]);
    // A query only bob received.
    const only = await ask(alice, 'Which logical qubit results came out of Willow in quantum computing?', [
      'bob',
    ]);
    await sleepUntil(
      () => requested(bob),
      (m) => m[only]?.status === 'pending',
    );
    for (const intruder of [alice, carol]) {
      expect((await requested(intruder))[only]).toBeUndefined();
      expect((await call(intruder.c, 'cqAcceptQuery', { id: only })).error?.code).toBe(403);
      expect((await call(intruder.c, 'cqRejectQuery', { id: only })).error?.code).toBe(403);
      expect(
        (await call(intruder.c, 'cqUpdateEditAnswer', { query_id: only, new_answer: 'hijacked' })).error
          ?.code,
      ).toBe(403);
    }
    expect((await requested(bob))[only]).toMatchObject({ status: 'pending' });
    expect((await requested(bob))[only]!.draft!.text).not.toContain('hijacked');
    expect((await call(carol.c, 'cqAcceptQuery', { id: 'qry-doesnotexist1' })).error?.code).toBe(404);
    const rejected = await ok<{ content: string }>(bob.c, 'cqRejectQuery', { id: only });
    expect(rejected.data.content).toBe(
      "Question 'Which logical qubit results came out of Willow in quantum computing?' has been rejected.",
    );
    await sleepUntil(
      () => asked(alice),
      (a) => a.questions.find((q) => q.id === only)?.peers[0]?.status === 'declined',
    );
  });

  it('drops an answer nobody asked for, and counts it in /metrics', async () => {
    const before = await asked(alice);
    // Signed by this very node, from an agent it hosts: only the question is missing.
    const node = loadNodeIdentity(testConfig(dir.path));
    const unsolicited = new EnvelopeSigner(node).sign({
      id: randomUUID(),
      subject: AnswerShared.subject,
      occurredAt: new Date().toISOString(),
      producer: { node: node.id, service: 'queries' },
      payload: AnswerShared.payload.parse({
        questionId: 'qry-neverasked0001',
        askerId: alice.id,
        askerHandle: 'alice',
        recipientId: bob.id,
        recipientHandle: 'bob',
        text: 'An answer to a question alice never asked.',
        citations: [],
        strategy: 'manual',
        revision: 1,
        sharedAt: new Date().toISOString(),
      }),
    });
    await lore.bus.publish(unsolicited);
    const metrics = await (await lore.app.request('/metrics')).text();
    expect(metrics).toMatch(/lore_envelopes_dropped_total\{service="queries",reason="unsolicited"\} 1/);
    expect(await asked(alice)).toEqual(before);
  });

  it('answers rpc.queries.stats and rpc.approvals.stats', async () => {
    const q = (await lore.bus.request(statsRpc('queries').subject, { since: new Date(0).toISOString() })) as {
      service: string;
      figures: Record<string, number>;
    };
    expect(q).toMatchObject({
      service: 'queries',
      figures: {
        questionsAsked: 2,
        answersReceived: 1,
        queriesAccepted: 1,
        queriesRejected: 1,
        queriesNoKnowledge: 1,
        // The decision log is the queries service's: bob's accept and carol's reject.
        manualAccepted: 1,
        manualRejected: 1,
      },
    });
    const a = (await lore.bus.request(statsRpc('approvals').subject, {
      since: new Date(0).toISOString(),
    })) as {
      service: string;
      figures: Record<string, number>;
    };
    expect(a).toMatchObject({
      service: 'approvals',
      figures: { conditions: 0 },
    });
  });
});

describe('auto-approval through the aggregator (no language model)', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let join: Awaited<ReturnType<typeof startLore>>['join'];
  let dave: Agent;
  let vr: Agent;
  let mallory: Agent;

  beforeAll(async () => {
    const s = await startLore(testConfig(dir.path, { LORE_RATE_LIMITS: 'false' }));
    lore = s.lore;
    join = s.join;
    dave = await join('dave');
    // A condition can only name agents that exist: it binds their ids when it is added.
    vr = await join('verified_researcher', { displayName: 'V. R.', bio: 'Coffee lover.' });
    mallory = await join('mallory', { bio: 'Sells used cars.' });
    await addSource(dave, 'quantum_computing.txt', QUANTUM_TXT);
    await addSource(dave, 'python_lists.md', PYTHON_MD);
    await addSource(dave, 'espresso.md', ESPRESSO_MD);
    for (const sentence of SEEDS) await ok(dave.c, 'cqAddAutoApprovalCondition', { sentence });
  });
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  const outcome = async (asker: Agent, question: string) => {
    const id = await ask(asker, question, ['dave']);
    await sleepUntil(
      () => requested(dave),
      (m) =>
        !!m[id] &&
        (m[id]!.status !== 'pending' ||
          m[id]!.decision?.decided_by !== 'none' ||
          /Pending:/.test(m[id]!.decision?.reason ?? '')),
    );
    return { id, q: (await requested(dave))[id]! };
  };

  it('lists the three seed conditions exactly', async () => {
    const r = await ok<{ conditions: string[] }>(dave.c, 'cqListAutoApprovalConditions');
    expect(r.data.conditions).toEqual(SEEDS);
  });

  it('accepts a scientific question from an academic user, and the answer reaches the asker unasked', async () => {
    const alice = await join('alice', {
      bio: 'Professor of physics at the University of Geneva.',
      skills: ['quantum optics'],
    });
    const { id, q } = await outcome(alice, QUESTION);
    expect(q).toMatchObject({
      status: 'accepted',
      decision: { decided_by: 'condition:interpreter', condition: SEEDS[0] },
    });
    expect(q.decision!.reason).toMatch(
      /profile of @alice \(written by @alice\) mentions (professor|university)/,
    );
    await sleepUntil(
      () => asked(alice),
      (a) => a.questions.find((x) => x.id === id)?.answers.length === 1,
    );
  });

  it('accepts a programming question from any user', async () => {
    const frank = await join('frank', { bio: 'Weekend gardener.' });
    const { q } = await outcome(frank, 'How do I reverse a list in Python?');
    expect(q).toMatchObject({ status: 'accepted', decision: { condition: SEEDS[1] } });
  });

  it('accepts anything from verified_researcher', async () => {
    const { q } = await outcome(vr, 'How long should an espresso shot take to brew?');
    expect(q).toMatchObject({ status: 'accepted', decision: { condition: SEEDS[2] } });
  });

  it('leaves a question no condition covers pending', async () => {
    const erin = await join('erin', { bio: 'Chef and food writer.' });
    const { q } = await outcome(erin, QUESTION);
    expect(q.status).toBe('pending');
    expect(q.decision?.reason).toMatch(/none of your conditions matches/);
  });

  it('rejects on a deny rule even where an allow rule matches; the asker is not told why, nor that it was', async () => {
    await ok(dave.c, 'cqAddAutoApprovalCondition', { sentence: 'Block questions from mallory' });
    const { id, q } = await outcome(mallory, 'How do I reverse a list in Python?');
    expect(q).toMatchObject({ status: 'rejected', decision: { condition: 'Block questions from mallory' } });
    // The owner's conditions refused it: mallory sees it waiting, as she would a held draft.
    expect((await asked(mallory)).questions.find((x) => x.id === id)?.peers[0]?.status).toBe('sent');
  });

  it('leaves a query pending when the no-model interpreter cannot decide a condition', async () => {
    const grace = await join('grace');
    await addSource(grace, 'quantum_computing.txt', QUANTUM_TXT);
    const added = await ok<{ understood_as: { undecidable: string[] } }>(
      grace.c,
      'cqAddAutoApprovalCondition',
      { sentence: 'Allow questions when I am online' },
    );
    expect(added.data.understood_as.undecidable).toEqual(['when i am online']);
    const alice2 = await join('alice_two', { bio: 'Professor.' });
    const id = await ask(alice2, QUESTION, ['grace']);
    await sleepUntil(
      () => requested(grace),
      (m) => /Pending/.test(m[id]?.decision?.reason ?? ''),
    );
    const q = (await requested(grace))[id]!;
    expect(q.status).toBe('pending');
    expect(q.decision?.reason).toContain('"when i am online" cannot be decided without a language model');
  });
});

/** A local server speaking the OpenAI chat-completions protocol: drafts cite passage 1; verdicts are scripted. */
class FakeOpenAI {
  requests: Array<{
    temperature?: number;
    response_format?: { type: string };
    messages: Array<{ role: string; content: string }>;
  }> = [];
  url = '';
  private server: Server = createServer((req, res) => void this.handle(req, res));
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    this.requests.push(body);
    const user: string = body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? '';
    let content: string;
    if (body.response_format?.type === 'json_object') {
      const question = /<question>\n([\s\S]*?)\n<\/question>/.exec(user)?.[1] ?? '';
      const condition = /<condition>\n([\s\S]*?)\n<\/condition>/.exec(user)?.[1] ?? '';
      content = JSON.stringify(
        /curious/i.test(question)
          ? { decision: 'allow', condition, reason: 'The asker says they are curious.' }
          : { decision: 'none', condition, reason: 'The asker does not seem curious.' },
      );
    } else if (/Task: summarize/.test(user))
      content = '- @henry: Google’s Willow showed below-threshold error correction [1].';
    else
      content =
        'Google’s Willow processor showed below-threshold quantum error correction in December 2024 [1].';
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 0,
        model: `${body.model}-served`,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  }
}

describe('auto-approval judged by a language model through the aggregator', () => {
  const dir = tempDir();
  const llm = new FakeOpenAI();
  let lore: AllInOne;
  let join: Awaited<ReturnType<typeof startLore>>['join'];

  beforeAll(async () => {
    await llm.start();
    const s = await startLore(
      testConfig(dir.path, { LORE_RATE_LIMITS: 'false', LORE_LLM_BASE_URL: llm.url, LORE_LLM_MODEL: 'tiny' }),
    );
    lore = s.lore;
    join = s.join;
  });
  afterAll(async () => {
    await lore.close();
    await llm.stop();
    dir.cleanup();
  });

  it('drafts with the endpoint, judges the condition at temperature 0 as strict JSON, and shares only what matches', async () => {
    const henry = await join('henry');
    await addSource(henry, 'quantum_computing.txt', QUANTUM_TXT);
    const added = await ok<{ understood_as: { judged_by: string } }>(henry.c, 'cqAddAutoApprovalCondition', {
      sentence: 'Share with people who seem genuinely curious',
    });
    expect(added.data.understood_as.judged_by).toBe('model');
    const ivy = await join('ivy');
    const curious = await ask(ivy, `I am curious: ${QUESTION}`, ['henry']);
    const plain = await ask(ivy, QUESTION, ['henry']);
    await sleepUntil(
      () => requested(henry),
      (m) => m[curious]?.status === 'accepted' && /Pending/.test(m[plain]?.decision?.reason ?? ''),
    );
    const m = await requested(henry);
    expect(m[curious]!.draft).toMatchObject({
      strategy: 'endpoint',
      citations: [expect.objectContaining({ source: 'quantum_computing.txt' })],
    });
    expect(m[curious]!.decision).toMatchObject({
      decided_by: 'condition:model',
      condition: 'Share with people who seem genuinely curious',
    });
    expect(m[plain]!.status).toBe('pending');
    const judged = llm.requests.filter((r) => r.response_format?.type === 'json_object');
    expect(judged.length).toBe(2);
    for (const r of judged) {
      expect(r.temperature).toBe(0);
      expect(r.messages[0]!.content).not.toContain(QUESTION);
      expect(r.messages[1]!.content).toContain(`<question>\n`);
      expect(r.messages[1]!.content).toContain(
        '<condition>\nShare with people who seem genuinely curious\n</condition>',
      );
    }
    await sleepUntil(
      () => asked(ivy),
      (a) => a.questions.find((q) => q.id === curious)?.answers.length === 1,
    );
    const summary = await ok<{ strategy: string; summary: string; model?: string }>(
      ivy.c,
      'cqSummarizeAnswers',
      { related_question: curious },
    );
    expect(summary.data).toMatchObject({ strategy: 'endpoint', model: 'tiny-served' });
    expect(summary.data.summary).toContain('@henry');
  });
});
