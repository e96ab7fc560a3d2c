import { randomUUID } from 'node:crypto';
import { loadNodeIdentity } from '@lore/kit';
import { appFetch, type Client, call, connectClient, describeConformance, ok } from '@lore/kit/testing';
import { AnswerShared, AnswerWithheld, QuestionAsked, statsRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPIENTS_IN_FLIGHT } from '../src/domain/intake.js';

import {
  type Asked,
  BOB_DOC,
  envelope,
  eventually,
  type Node,
  QUESTION,
  type Requested,
  signed,
  startNode,
} from './support.js';

describe('queries service over MCP', () => {
  let n: Node;
  let alice: Awaited<ReturnType<Node['join']>>;
  let bob: Awaited<ReturnType<Node['join']>>;
  let carol: Awaited<ReturnType<Node['join']>>;
  let queryId: string;

  const requested = async (c: Client, args: Record<string, unknown> = {}) =>
    (await ok<Requested>(c, 'cqListRequestedQueries', args)).data;
  const asked = async (c: Client, args: Record<string, unknown> = {}) =>
    (await ok<Asked>(c, 'cqListAskedQuestions', args)).data;

  beforeAll(async () => {
    n = await startNode();
    alice = await n.join('alice', { bio: 'Professor of physics.' });
    bob = await n.join('bob');
    carol = await n.join('carol');
    n.docs.set(bob.id, [BOB_DOC]);
    n.docs.set(carol.id, [
      { source: 'recipes.md', text: 'Bake the bread for forty minutes at two hundred degrees.' },
    ]);
  });
  afterAll(() => n.stop());

  describeConformance('queries', {
    service: () => n.queries,
    // The inbox app's edit, approve and reject among them.
    tools: [
      'cqInboxEditAnswer',
      'cqInboxApprove',
      'cqInboxReject',
      'cqAskQuestion',
      'cqAcceptQuery',
      'cqListAskedQuestions',
      'cqListRequestedQueries',
      'cqRejectQuery',
      'cqSummarizeAnswers',
      'cqUpdateEditAnswer',
    ],
    args: {
      cqAskQuestion: { question: QUESTION, peers: ['bob'] },
      cqSummarizeAnswers: { related_question: QUESTION },
      cqUpdateEditAnswer: { query_id: 'qry-abcdef123456', new_answer: 'x' },
      cqAcceptQuery: { id: 'qry-abcdef123456' },
      cqRejectQuery: { id: 'qry-abcdef123456' },
    },
  });

  it('marks asking open-world and listing read-only', async () => {
    const { tools } = await alice.q.listTools();
    const ask = tools.find((t) => t.name === 'cqAskQuestion')!;
    expect(ask.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(tools.find((t) => t.name === 'cqListRequestedQueries')!.annotations?.readOnlyHint).toBe(true);
  });

  it.each([
    [{ question: 'hi', peers: ['bob'] }, 'question'],
    [{ question: 'x'.repeat(2001), peers: ['bob'] }, 'question'],
    [{ question: QUESTION, peers: Array.from({ length: 101 }, (_, i) => `peer_${i}`) }, 'peers'],
    [{ question: QUESTION, peers: ['no way!'] }, 'peers.0'],
    [{ question: QUESTION }, 'peers'],
  ])('refuses %o with a 400 naming %s', async (args, field) => {
    const r = await call(alice.q, 'cqAskQuestion', args);
    expect(r.error?.code).toBe(400);
    expect(r.error?.data?.field).toBe(field);
  });

  it('refuses asking yourself, and names unknown peers in a 404', async () => {
    const self = await call(alice.q, 'cqAskQuestion', { question: QUESTION, peers: ['bob', '@Alice'] });
    expect(self.error).toMatchObject({
      code: 400,
      data: { field: 'peers', constraint: 'must not include yourself' },
    });
    const r = await call(alice.q, 'cqAskQuestion', {
      question: QUESTION,
      peers: ['bob', 'nobody_here', 'ghost'],
    });
    expect(r.error?.code).toBe(404);
    expect(r.error?.message).toContain('@nobody_here');
    expect(r.error?.message).toContain('@ghost');
    expect(r.error?.data?.peers).toEqual(['nobody_here', 'ghost']);
    expect((await asked(alice.q)).total).toBe(0);
  });

  it('sends the question and drafts from each recipient’s own knowledge only', async () => {
    const r = await ok<{ content: string; query_id: string; peers: string[]; peers_reached: number }>(
      alice.q,
      'cqAskQuestion',
      {
        question: QUESTION,
        peers: ['bob', 'carol'],
      },
    );
    queryId = r.data.query_id;
    expect(queryId).toMatch(/^qry-[a-z0-9]{12}$/);
    expect(r.text).toMatch(/^Query request sent to @bob, @carol/);
    expect(r.text).toContain(`Answers arrive as each peer or their approval conditions release them`);
    expect(r.text).toContain(`call cqSummarizeAnswers with related_question "${queryId}"`);
    expect(r.text).not.toContain('Instruct the user');
    expect(r.data).toMatchObject({ peers: ['bob', 'carol'], peers_reached: 2, content: r.text });

    await eventually(
      () => requested(bob.q),
      (m) => m[queryId]?.status === 'pending',
    );
    const mine = (await requested(bob.q))[queryId]!;
    expect(mine).toMatchObject({
      id: queryId,
      from: 'alice',
      question: QUESTION,
      status: 'pending',
      untrusted: true,
    });
    expect(mine.draft?.text).toContain('error-corrected logical qubits');
    expect(mine.draft?.citations[0]).toMatchObject({ source: 'quantum_computing.txt' });
    expect(BOB_DOC.text).toContain(mine.draft!.citations[0]!.excerpt);
    expect(mine.draft?.strategy).toBe('extractive');
    expect(mine.decision.reason).toMatch(/No auto-approval conditions/);
    // The asker's traits travel with the question, for conditions about who is asking.
    expect(n.evaluations.find((e) => e.queryId === queryId)?.asker.profile?.bio).toBe(
      'Professor of physics.',
    );

    // Carol knows nothing relevant: no draft; the question is in her inbox as nothing matched,
    // and the asker sees it waiting for her exactly as it sees bob's held draft (no oracle).
    await eventually(
      () => requested(carol.q),
      (m) => m[queryId]?.status === 'no-knowledge',
    );
    const nothing = (await requested(carol.q))[queryId]!;
    expect(nothing).toMatchObject({ status: 'no-knowledge', draft: null });
    expect(nothing.decision.reason).toMatch(/Nothing in your knowledge matched.*waiting for you/);
    expect((await requested(carol.q, { status: 'pending' }))[queryId]).toBeUndefined();
    expect(n.retrievals.filter((id) => id === bob.id || id === carol.id).sort()).toEqual(
      [bob.id, carol.id].sort(),
    );
    // Not even the time of the last change tells them apart: both are the time it was asked.
    const peers = (await asked(alice.q)).questions[0]!.peers as Array<{
      peer: string;
      status: string;
      updated_at: string;
    }>;
    expect(peers).toEqual([
      { peer: 'bob', status: 'sent', updated_at: peers[0]!.updated_at },
      { peer: 'carol', status: 'sent', updated_at: peers[0]!.updated_at },
    ]);
  });

  it('filters requested queries by status and sender', async () => {
    expect(Object.keys(await requested(bob.q, { status: 'pending' }))).toContain(queryId);
    expect(Object.keys(await requested(bob.q, { status: 'accepted' }))).not.toContain(queryId);
    expect(Object.keys(await requested(bob.q, { from: 'alice' }))).toContain(queryId);
    expect(Object.keys(await requested(bob.q, { from: '@carol' }))).toEqual([]);
    expect((await call(bob.q, 'cqListRequestedQueries', { status: 'maybe' })).error?.data?.field).toBe(
      'status',
    );
  });

  it('says no answers yet, with how many peers are still pending', async () => {
    const r = await ok<{ summary: string | null; pending: number; matched_by: string }>(
      alice.q,
      'cqSummarizeAnswers',
      {
        related_question: queryId,
      },
    );
    expect(r.data).toMatchObject({ summary: null, pending: 2, matched_by: 'id' });
    expect(r.text).toContain('No answers yet');
    expect(r.text).toContain('2 of 2 peers still pending');
  });

  it('lets nobody but the recipient see, edit or decide a query', async () => {
    expect(Object.keys(await requested(alice.q))).toEqual([]);
    const carolEdit = await call(carol.q, 'cqUpdateEditAnswer', { query_id: queryId, new_answer: 'hijack' });
    // Carol has her own copy (no knowledge): editing it is hers to do, bob's draft is untouched.
    expect(carolEdit.isError).toBe(false);
    const aliceEdit = await call(alice.q, 'cqUpdateEditAnswer', { query_id: queryId, new_answer: 'hijack' });
    expect(aliceEdit.error?.code).toBe(403);
    expect(
      (await call(alice.q, 'cqUpdateEditAnswer', { query_id: 'qry-000000000000', new_answer: 'x' })).error
        ?.code,
    ).toBe(404);
    expect(
      (await call(alice.q, 'cqUpdateEditAnswer', { query_id: 'not-an-id', new_answer: 'x' })).error?.data
        ?.field,
    ).toBe('query_id');
    for (const tool of ['cqAcceptQuery', 'cqRejectQuery', 'cqInboxApprove', 'cqInboxReject'])
      expect((await call(alice.q, tool, { id: queryId })).error?.code, tool).toBe(403);
    expect((await call(alice.q, 'cqAcceptQuery', { id: 'qry-000000000000' })).error?.code).toBe(404);
    expect((await call(alice.q, 'cqAcceptQuery', { id: 'not-an-id' })).error?.data?.field).toBe('id');
    expect(
      (await call(alice.q, 'cqRejectQuery', { id: queryId, reason: 'x'.repeat(501) })).error?.data?.field,
    ).toBe('reason');
    expect((await requested(bob.q))[queryId]!.draft?.text).not.toContain('hijack');
  });

  it('edits a pending draft, accepts it once, and sends revisions to the asker', async () => {
    const edited = 'Logical qubits with error correction are the big news of 2024 (from my notes).';
    const e = await ok<{ status: string; sent_to_asker: boolean }>(bob.q, 'cqUpdateEditAnswer', {
      query_id: queryId,
      new_answer: edited,
    });
    expect(e.text).toMatch(/^Successfully updated answer for query_id 'qry-[a-z0-9]+'\./);
    expect(e.data).toMatchObject({
      content: `Successfully updated answer for query_id '${queryId}'.`,
      status: 'pending',
      sent_to_asker: false,
    });
    expect((await requested(bob.q))[queryId]!.draft).toMatchObject({ text: edited, edited: true });

    const decided = await ok<{ content: string; id: string; status: string }>(bob.q, 'cqAcceptQuery', {
      id: queryId,
    });
    expect(decided.data).toEqual({
      content: `Question '${QUESTION}' has been accepted.`,
      id: queryId,
      status: 'accepted',
    });
    expect(decided.text).toBe(`Question '${QUESTION}' has been accepted. The answer was sent to @alice.`);
    // Once only: a second accept, or a late reject, never sends or withdraws anything.
    expect((await call(bob.q, 'cqAcceptQuery', { id: queryId })).error).toMatchObject({
      code: 409,
      message: expect.stringContaining('already accepted'),
    });
    expect((await call(bob.q, 'cqRejectQuery', { id: queryId, reason: 'late' })).error?.code).toBe(409);

    await eventually(
      () => asked(alice.q),
      (a) => a.questions[0]?.answers.some((x) => x.peer === 'bob') ?? false,
    );
    const q = (await asked(alice.q)).questions[0]!;
    expect(q.answers).toEqual([
      expect.objectContaining({
        peer: 'bob',
        text: edited,
        revision: 1,
        untrusted: true,
        strategy: 'manual',
      }),
    ]);
    expect(q.peers.find((p) => p.peer === 'bob')?.status).toBe('answered');
    expect((await requested(bob.q, { status: 'accepted' }))[queryId]?.decision).toMatchObject({
      decided_by: 'manual:@bob',
    });

    const revised = 'Revised: logical qubits and better gate fidelity.';
    const r2 = await ok<{ revision: number; sent_to_asker: boolean }>(bob.q, 'cqUpdateEditAnswer', {
      query_id: queryId,
      new_answer: revised,
    });
    expect(r2.data).toMatchObject({ revision: 2, sent_to_asker: true });
    expect(r2.text).toContain('Revision 2 was sent to @alice.');
    await eventually(
      () => asked(alice.q),
      (a) => a.questions[0]?.answers[0]?.revision === 2,
    );
    expect((await asked(alice.q)).questions[0]!.answers[0]!.text).toBe(revised);
  });

  it('summarises the answers, naming the peer and the strategy, found by id, text or words', async () => {
    for (const [ref, how] of [
      [queryId, 'id'],
      [QUESTION.toUpperCase(), 'exact'],
      ['quantum developments', 'search'],
    ] as const) {
      const r = await ok<{
        summary: string;
        strategy: string;
        matched_by: string;
        answers: Array<{ peer: string }>;
        citations: Array<{ peer: string }>;
      }>(alice.q, 'cqSummarizeAnswers', { related_question: ref, detailed_answer: 1 });
      expect(r.data.matched_by).toBe(how);
      expect(r.data.strategy).toBe('extractive');
      expect(r.data.summary).toContain('@bob');
      expect(r.data.summary).toContain('logical qubits');
      expect(r.data.citations[0]?.peer).toBe('bob');
      expect(r.text).toMatch(/written by extraction/);
    }
    const missing = await call(alice.q, 'cqSummarizeAnswers', { related_question: 'sourdough starters' });
    expect(missing.error?.code).toBe(404);
    expect(missing.error?.message).toContain(queryId);
    expect((await call(bob.q, 'cqSummarizeAnswers', { related_question: queryId })).error?.code).toBe(404);
    expect(
      (await call(alice.q, 'cqSummarizeAnswers', { related_question: queryId, detailed_answer: 2 })).error
        ?.data?.field,
    ).toBe('detailed_answer');
  });

  // (2025-11-25 clients get sampling through the aggregator's sessions: see the aggregator's knowledge-flow test.)
  it('summarises with the client’s own model when it offers sampling (2026-07-28 input requests)', async () => {
    for (const era of ['modern'] as const) {
      const c = await connectClient(appFetch(n.queries.app), {
        key: alice.key,
        era,
        capabilities: { sampling: {} },
      });
      const prompts: Array<{ system: string; user: string; temperature?: number }> = [];
      c.setRequestHandler('sampling/createMessage', async (req) => {
        prompts.push({
          system: req.params.systemPrompt ?? '',
          user: (req.params.messages[0]!.content as { text: string }).text,
          ...(req.params.temperature !== undefined ? { temperature: req.params.temperature } : {}),
        });
        return {
          role: 'assistant',
          model: 'client-model',
          content: { type: 'text', text: '- @bob: logical qubits are the news of 2024 [1].' },
        };
      });
      const r = await ok<{ strategy: string; summary: string; citations: Array<{ peer: string }> }>(
        c,
        'cqSummarizeAnswers',
        { related_question: queryId },
      );
      expect(r.data.strategy, era).toBe('sampling');
      expect(r.data.summary).toBe('- @bob: logical qubits are the news of 2024 [1].');
      expect(r.data.citations).toEqual([expect.objectContaining({ peer: 'bob' })]);
      expect(r.text).toContain('written by your client’s model (MCP sampling)');
      expect(prompts).toHaveLength(1);
      // The peers' answers reach the model as quoted data, never as instructions.
      expect(prompts[0]!.system).toMatch(/quoted DATA/);
      expect(prompts[0]!.system).not.toContain('logical qubits');
      expect(prompts[0]!.user).toMatch(/<passage n="1" id="[^"]+" source="bob">/);
      expect(prompts[0]!.temperature).toBe(0);
    }
  });

  it('applies what the recipient’s conditions decide; a condition’s refusal is not told to the asker', async () => {
    const dave = await n.join('dave');
    const erin = await n.join('erin');
    n.docs.set(dave.id, [BOB_DOC]);
    n.docs.set(erin.id, [BOB_DOC]);
    n.verdicts.set('dave', 'accepted');
    n.verdicts.set('erin', 'rejected');
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', {
      question: 'Any news about quantum computing qubits?',
      peers: ['dave', 'erin'],
    });
    const id = r.data.query_id;
    await eventually(
      () => asked(alice.q),
      (a) => {
        const peers = a.questions.find((q) => q.id === id)?.peers ?? [];
        return peers.find((p) => p.peer === 'dave')?.status === 'answered';
      },
    );
    await eventually(
      () => requested(erin.q),
      (m) => m[id]?.status === 'rejected',
    );
    // Erin's conditions refused: her inbox says so, and the asker still sees it waiting for her,
    // as it would a held draft or a question that found nothing.
    const peers = (await asked(alice.q)).questions.find((q) => q.id === id)!.peers;
    expect(peers.find((p) => p.peer === 'erin')?.status).toBe('sent');
    expect((await requested(dave.q))[id]).toMatchObject({
      status: 'accepted',
      decision: { decided_by: 'condition:interpreter' },
    });
    expect((await requested(erin.q))[id]).toMatchObject({ status: 'rejected' });
    expect((await call(erin.q, 'cqUpdateEditAnswer', { query_id: id, new_answer: 'x' })).error?.code).toBe(
      409,
    );
  });

  it('broadcasts to every other agent of the network when peers is empty', async () => {
    const r = await ok<{ peers: string[]; broadcast: boolean; peers_reached: number }>(
      alice.q,
      'cqAskQuestion',
      {
        question: 'Who knows anything about quantum computing errors?',
        peers: [],
      },
    );
    expect(r.data.broadcast).toBe(true);
    expect(r.data.peers.sort()).toEqual(['bob', 'carol', 'dave', 'erin']);
    expect(r.text).toMatch(/^Query request sent to all 4 peers of the network/);
  });

  it('splits a broadcast over several events, 500 recipients each', async () => {
    // 1,100 agents hosted by another node (nothing is drafted here for them).
    for (let i = 0; i < 1100; i++)
      await n.directory.claimHandle(`remote_${i}`, { agentId: `remote-${i}`, node: 'node-elsewhere' });
    const seen: Array<{ questionId: string; recipients: Array<{ handle: string }> }> = [];
    const sub = await n.deps.bus.listen(QuestionAsked.subject, (e) =>
      seen.push(e.payload as (typeof seen)[number]),
    );
    try {
      const r = await ok<{ query_id: string; peers_reached: number }>(alice.q, 'cqAskQuestion', {
        question: 'Does anyone know about qubits?',
        peers: [],
      });
      expect(r.data.peers_reached).toBe(1104);
      await expect.poll(() => seen.filter((p) => p.questionId === r.data.query_id).length).toBe(3);
      const mine = seen.filter((p) => p.questionId === r.data.query_id);
      expect(mine.map((p) => p.recipients.length)).toEqual([500, 500, 104]);
      expect(new Set(mine.flatMap((p) => p.recipients.map((x) => x.handle))).size).toBe(1104);
    } finally {
      await sub.close();
      for (let i = 0; i < 1100; i++) await n.directory.releaseHandle(`remote_${i}`, `remote-${i}`);
    }
  });

  it('drops forged envelopes and answers nobody asked for, and counts them', async () => {
    const before = await asked(alice.q);
    // An answer to a question alice never sent to carol, properly signed by carol's node.
    const unsolicited = signed(
      n.node,
      envelope(
        AnswerShared,
        {
          questionId: 'qry-neverasked001',
          askerId: alice.id,
          askerHandle: 'alice',
          recipientId: carol.id,
          recipientHandle: 'carol',
          text: 'Buy my course!',
          citations: [],
          strategy: 'manual',
          revision: 1,
          sharedAt: new Date().toISOString(),
        },
        n.node.id,
      ),
    );
    // An answer to a real question, but tampered with after signing.
    const tampered = signed(
      n.node,
      envelope(
        AnswerShared,
        {
          questionId: queryId,
          askerId: alice.id,
          askerHandle: 'alice',
          recipientId: carol.id,
          recipientHandle: 'carol',
          text: 'original',
          citations: [],
          strategy: 'manual',
          revision: 9,
          sharedAt: new Date().toISOString(),
        },
        n.node.id,
      ),
    );
    (tampered.payload as { text: string }).text = 'forged';
    // A question claiming an asker that no node of this signer hosts.
    const other = loadNodeIdentity({
      ...n.deps.config,
      LORE_DATA_DIR: `${n.deps.config.LORE_DATA_DIR}/other`,
      LORE_NODE_ID: 'node-other',
    });
    await n.directory.registerNode(other.id, other.publicKey);
    const impostor = signed(
      other,
      envelope(
        QuestionAsked,
        {
          questionId: 'qry-impostor00001',
          question: 'Tell me your secrets about quantum computing qubits',
          askedAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          asker: { id: alice.id, handle: 'alice', node: other.id, profile: null },
          recipients: [{ id: bob.id, handle: 'bob', node: n.node.id }],
        },
        other.id,
      ),
    );
    const unsigned = envelope(
      QuestionAsked,
      {
        questionId: 'qry-unsigned00001',
        question: 'Unsigned question about quantum computing qubits',
        askedAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        asker: { id: alice.id, handle: 'alice', node: n.node.id, profile: null },
        recipients: [{ id: bob.id, handle: 'bob', node: n.node.id }],
      },
      n.node.id,
    );
    for (const e of [unsolicited, tampered, impostor, unsigned]) await n.deps.bus.publish(e);

    const metrics = await n.metrics();
    for (const reason of ['unsolicited', 'bad-signature', 'sender-not-hosted-by-signer', 'unsigned'])
      expect(metrics).toMatch(
        new RegExp(`lore_envelopes_dropped_total\\{service="queries",reason="${reason}"\\} 1`),
      );
    const after = await asked(alice.q);
    expect(after).toEqual(before);
    const bobs = await requested(bob.q);
    expect(bobs['qry-impostor00001']).toBeUndefined();
    expect(bobs['qry-unsigned00001']).toBeUndefined();
  });

  it('answers rpc.queries.stats with its figures', async () => {
    const stats = async () =>
      (await n.deps.bus.request(statsRpc('queries').subject, { since: new Date(0).toISOString() })) as {
        service: string;
        figures: Record<string, number>;
      };
    // Four questions: alice→bob,carol; alice→dave,erin; two broadcasts to bob, carol, dave, erin
    // (the second matches nobody's knowledge). Wait until every copy is settled and answered.
    // The five broadcast copies that matched nothing were dropped: they are not counted.
    await expect.poll(async () => (await stats()).figures.answersReceived, { timeout: 10_000 }).toBe(3);
    const r = await stats();
    expect(r.service).toBe('queries');
    expect(r.figures).toMatchObject({
      questionsAsked: 4,
      queriesReceived: 7,
      queriesAccepted: 3,
      queriesRejected: 2,
      queriesNoKnowledge: 0,
      queriesPending: 2,
      answersReceived: 3,
    });
    expect(r.figures.callsToday).toBeGreaterThan(10);
  });
});

describe('a question to many recipients', () => {
  /** More recipients than are handled at once, a multiple of 4 (see the mix below). */
  const PEERS = 4 * Math.ceil((RECIPIENTS_IN_FLIGHT + 12) / 4);
  let n: Node;
  let asker: Awaited<ReturnType<Node['join']>>;
  const handles = Array.from({ length: PEERS }, (_, i) => `many_${String(i).padStart(3, '0')}`);
  const peers = new Map<string, Awaited<ReturnType<Node['join']>>>();
  const ids = new Map<string, string>();
  /** Half the peers know the topic; of those, every other one accepts automatically. */
  const knows = (i: number) => i % 2 === 0;
  const accepts = (i: number) => i % 4 === 0;

  beforeAll(async () => {
    n = await startNode();
    asker = await n.join('many_asker');
    for (const [i, h] of handles.entries()) {
      const p = await n.join(h);
      peers.set(h, p);
      ids.set(h, p.id);
      if (knows(i)) n.docs.set(p.id, [BOB_DOC]);
      if (accepts(i)) n.verdicts.set(h, 'accepted');
    }
  });
  afterAll(() => n.stop());

  /**
   * Ask every peer, then wait until every copy is settled: the asker has the answers of those
   * that accept, and the copies of those that know nothing are in their owners' inboxes (the
   * asker hears nothing of them, nor of drafts waiting for their owners).
   */
  const askAll = async (question: string) => {
    const r = await ok<{ query_id: string }>(asker.q, 'cqAskQuestion', { question, peers: handles });
    const id = r.data.query_id;
    const answering = handles.filter((_, i) => knows(i) && accepts(i)).length;
    await eventually(
      async () => (await ok<Asked>(asker.q, 'cqListAskedQuestions', { limit: 1 })).data,
      (a) => (a.questions[0]?.peers ?? []).filter((p) => p.status === 'answered').length === answering,
    );
    const unknowing = handles.filter((_, i) => !knows(i));
    await eventually(
      async () =>
        Promise.all(
          unknowing.map(
            async (h) => (await ok<Requested>(peers.get(h)!.q, 'cqListRequestedQueries')).data[id]?.status,
          ),
        ),
      (statuses) => statuses.every((st) => st === 'no-knowledge'),
    );
    return id;
  };
  const withheld: Array<{ questionId: string; recipientHandle: string }> = [];
  const shared: Array<{ questionId: string; recipientHandle: string }> = [];
  beforeAll(async () => {
    await n.deps.bus.listen(AnswerWithheld.subject, (e) => withheld.push(e.payload as (typeof withheld)[0]));
    await n.deps.bus.listen(AnswerShared.subject, (e) => shared.push(e.payload as (typeof shared)[0]));
  });
  const count = (xs: string[]) =>
    xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());

  it('handles the recipients several at a time, at most RECIPIENTS_IN_FLIGHT', async () => {
    let inFlight = 0;
    let most = 0;
    n.hooks.beforeRetrieve = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 50));
      inFlight--;
    };
    try {
      const id = await askAll('What are the latest developments in quantum computing hardware?');
      // Many at once, never more than the bound (a slow machine may not fill every slot).
      expect(most).toBeGreaterThan(RECIPIENTS_IN_FLIGHT / 2);
      expect(most).toBeLessThanOrEqual(RECIPIENTS_IN_FLIGHT);
      const drafted = n.evaluations.filter((e) => e.queryId === id);
      expect(drafted.map((e) => e.recipient.handle).sort()).toEqual(handles.filter((_, i) => knows(i)));
      // Only the answers reach the asker: nothing about who found nothing or whose draft waits.
      expect(withheld.filter((w) => w.questionId === id)).toHaveLength(0);
      expect(shared.filter((a) => a.questionId === id)).toHaveLength(PEERS / 4);
    } finally {
      delete n.hooks.beforeRetrieve;
    }
  });

  it('retries a recipient whose retrieval failed (later, from the database), without handling the others twice', async () => {
    const failing = handles[4]!;
    let failures = 0;
    n.hooks.beforeRetrieve = async (agentId) => {
      if (agentId === ids.get(failing) && failures++ === 0) throw new Error('knowledge is restarting');
    };
    const from = n.retrievals.length;
    try {
      const id = await askAll('Which quantum computing error rates were demonstrated lately?');
      expect(failures).toBe(2);
      const retrieved = count(n.retrievals.slice(from));
      expect(retrieved.size).toBe(PEERS);
      for (const h of handles) expect(retrieved.get(ids.get(h)!), h).toBe(h === failing ? 2 : 1);
      // Every copy decided once: one evaluation per draft, one message to the asker per settled peer.
      const evaluated = count(n.evaluations.filter((e) => e.queryId === id).map((e) => e.recipient.handle));
      expect([...evaluated.keys()].sort()).toEqual(handles.filter((_, i) => knows(i)));
      expect(Math.max(...evaluated.values())).toBe(1);
      const told = count([
        ...withheld.filter((w) => w.questionId === id).map((w) => w.recipientHandle),
        ...shared.filter((a) => a.questionId === id).map((a) => a.recipientHandle),
      ]);
      expect(told.size).toBe(PEERS / 4);
      expect(Math.max(...told.values())).toBe(1);
      const copy = (await ok<Requested>(peers.get(failing)!.q, 'cqListRequestedQueries')).data[id];
      expect(copy?.status).toBe('accepted');
    } finally {
      delete n.hooks.beforeRetrieve;
    }
  });

  it('records and decides each copy once when the same question arrives twice at once', async () => {
    const asked = signed(
      n.node,
      envelope(
        QuestionAsked,
        {
          questionId: 'qry-twice0000001',
          question: 'Tell me about quantum computing qubits and error correction',
          askedAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          asker: { id: asker.id, handle: 'many_asker', node: n.node.id, profile: null },
          recipients: handles.map((h) => ({ id: ids.get(h)!, handle: h, node: n.node.id })),
        },
        n.node.id,
      ),
    );
    // Another envelope with the same question (the asker's node published it again).
    const again = signed(n.node, { ...asked, id: randomUUID(), signature: undefined });
    await Promise.all([n.deps.bus.publish(asked), n.deps.bus.publish(again)]);
    await expect.poll(() => shared.filter((a) => a.questionId === 'qry-twice0000001').length).toBe(PEERS / 4);
    // Nothing more trickles in.
    await new Promise((r) => setTimeout(r, 300));
    expect(withheld.filter((w) => w.questionId === 'qry-twice0000001')).toHaveLength(0);
    expect(shared.filter((a) => a.questionId === 'qry-twice0000001')).toHaveLength(PEERS / 4);
    const stats = (await n.deps.bus.request(statsRpc('queries').subject, {
      since: new Date(0).toISOString(),
    })) as {
      figures: Record<string, number>;
    };
    expect(stats.figures.queriesReceived).toBe(3 * PEERS);
  });
});

describe('question expiry', () => {
  let n: Node;
  beforeAll(async () => {
    n = await startNode({ LORE_QUERY_TTL_HOURS: '0' });
  });
  afterAll(() => n.stop());

  it('shows peers that never answered as expired once the TTL has passed, and drafts nothing late', async () => {
    const alice = await n.join('alice');
    const bob = await n.join('bob');
    n.docs.set(bob.id, [BOB_DOC]);
    const r = await ok<{ query_id: string; expires_at: string }>(alice.q, 'cqAskQuestion', {
      question: QUESTION,
      peers: ['bob'],
    });
    await new Promise((res) => setTimeout(res, 50));
    const a = await ok<Asked>(alice.q, 'cqListAskedQuestions', { status: 'expired' });
    expect(a.data.questions.map((q) => q.id)).toEqual([r.data.query_id]);
    expect(a.data.questions[0]!.peers).toEqual([
      { peer: 'bob', status: 'expired', updated_at: r.data.expires_at },
    ]);
    expect((await ok<Asked>(alice.q, 'cqListAskedQuestions', { status: 'sent' })).data.total).toBe(0);
    expect(Object.keys((await ok<Requested>(bob.q, 'cqListRequestedQueries')).data)).toEqual([]);
  });
});
