/**
 * The received query's lifecycle through the real service: steps that cannot run are retried and
 * then marked undeliverable (the asker sees why), decisions are announced once as
 * `lore.queries.query.decided`, `held` waits for the owner, and edits cite what they still say.
 */
import type { Client } from '@lore/kit/testing';
import { ok } from '@lore/kit/testing';
import { AnswerShared, type EventEnvelope, QueryDecided } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type Asked, BOB_DOC, eventually, type Node, type Requested, startNode } from './support.js';

type Decided = z.output<typeof QueryDecided.payload>;
type Shared = z.output<typeof AnswerShared.payload>;

describe('received query lifecycle', () => {
  let n: Node;
  let alice: Awaited<ReturnType<Node['join']>>;
  let bob: Awaited<ReturnType<Node['join']>>;
  const decided: Array<{ event: EventEnvelope; d: Decided }> = [];
  const shared: Shared[] = [];
  let seq = 0;

  const requested = async (c: Client) => (await ok<Requested>(c, 'cqListRequestedQueries')).data;
  const asked = async () => (await ok<Asked>(alice.q, 'cqListAskedQuestions')).data;
  const peerOf = async (id: string) => (await asked()).questions.find((q) => q.id === id)?.peers[0];
  /** Each test asks a question of its own wording, so copies never collide. */
  const ask = async () => {
    const question = `What are the latest developments in quantum computing, take ${++seq}?`;
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', { question, peers: ['bob'] });
    return r.data.query_id;
  };
  const statusOf = async (id: string) => (await requested(bob.q))[id]?.status;

  beforeAll(async () => {
    // A 3-second retry window with waits of at most half a second.
    n = await startNode({
      LORE_DELIVERY_RETRY_MINUTES: '0.05',
      LORE_DELIVERY_RETRY_MAX_BACKOFF_SECONDS: '0.5',
    });
    alice = await n.join('alice');
    bob = await n.join('bob');
    n.docs.set(bob.id, [BOB_DOC]);
    await n.deps.bus.listen(QueryDecided.subject, (event) =>
      decided.push({ event, d: QueryDecided.payload.parse(event.payload) }),
    );
    await n.deps.bus.listen(AnswerShared.subject, (e) => shared.push(AnswerShared.payload.parse(e.payload)));
  });
  afterAll(() => n.stop());

  it('retries drafting while knowledge is away, then marks the copy undeliverable and tells the asker why', async () => {
    let tries = 0;
    n.hooks.beforeRetrieve = async () => {
      tries++;
      // An error with a code crosses the bus with its message (others are hidden as internal).
      throw Object.assign(new Error('knowledge is restarting'), { code: 503 });
    };
    try {
      const id = await ask();
      await eventually(
        () => statusOf(id),
        (s) => s === 'drafting',
      );
      await eventually(
        () => statusOf(id),
        (s) => s === 'undeliverable',
      );
      // Attempts with backoff over the window: more than one, far fewer than a busy loop.
      expect(tries).toBeGreaterThanOrEqual(3);
      expect(tries).toBeLessThan(30);
      const copy = (await requested(bob.q))[id]!;
      expect(copy.decision.reason).toMatch(
        /^Undeliverable: Drafting could not run for 3 s \(\d+ attempts; last error: knowledge is restarting\)/,
      );
      await eventually(
        () => peerOf(id),
        (p) => p?.status === 'undeliverable',
      );
      expect((await peerOf(id))?.reason).toMatch(/Drafting could not run/);
      const summary = await ok(alice.q, 'cqSummarizeAnswers', { related_question: id });
      expect(summary.text).toMatch(/@bob undeliverable \(Drafting could not run/);
      const system = decided.filter((x) => x.d.queryId === id);
      expect(system.map((x) => [x.d.kind, x.d.outcome])).toEqual([['system', 'undeliverable']]);
    } finally {
      delete n.hooks.beforeRetrieve;
    }
  });

  it('answers a question whose drafting failed at first, once knowledge is back within the window', async () => {
    let tries = 0;
    n.hooks.beforeRetrieve = async () => {
      if (++tries <= 2) throw new Error('knowledge is restarting');
    };
    n.verdicts.set('bob', 'accepted');
    try {
      const id = await ask();
      await eventually(
        () => peerOf(id),
        (p) => p?.status === 'answered',
      );
      expect(tries).toBe(3);
      const outcomes = async () => decided.filter((x) => x.d.queryId === id).map((x) => x.d.outcome);
      await eventually(outcomes, (o) => o.length > 0);
      expect(await outcomes()).toEqual(['accepted']);
    } finally {
      delete n.hooks.beforeRetrieve;
      n.verdicts.delete('bob');
    }
  });

  it('retries evaluation while approvals is away, decides once when it returns, and announces the decision', async () => {
    let refusals = 0;
    n.hooks.beforeEvaluate = async () => {
      if (++refusals <= 3) throw new Error('nothing answers on rpc.approvals.evaluate');
    };
    n.verdicts.set('bob', 'rejected');
    try {
      const id = await ask();
      await eventually(
        () => statusOf(id),
        (s) => s === 'drafted',
      );
      await eventually(
        () => statusOf(id),
        (s) => s === 'rejected',
      );
      await eventually(
        async () => decided.filter((x) => x.d.queryId === id).length,
        (c) => c > 0,
      );
      // The conditions' refusal is announced on this node; the asker still sees the question waiting.
      expect((await peerOf(id))?.status).toBe('sent');
      const mine = decided.filter((x) => x.d.queryId === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.event.producer).toMatchObject({ node: n.node.id, service: 'queries' });
      expect(mine[0]!.d).toMatchObject({
        kind: 'auto',
        outcome: 'rejected',
        recipientHandle: 'bob',
        askerHandle: 'alice',
        condition: 'test rejected',
        reason: 'rejected by the test condition',
        decidedBy: 'condition:interpreter',
      });
    } finally {
      delete n.hooks.beforeEvaluate;
      n.verdicts.delete('bob');
    }
  });

  it('gives up an evaluation that cannot run in the window, and still lets the owner accept it', async () => {
    n.hooks.beforeEvaluate = async () => {
      throw new Error('approvals is down');
    };
    let id: string;
    try {
      id = await ask();
      await eventually(
        () => statusOf(id),
        (s) => s === 'undeliverable',
      );
      expect((await requested(bob.q))[id]!.decision.reason).toMatch(/Evaluation could not run/);
      await eventually(
        () => peerOf(id),
        (p) => p?.status === 'undeliverable',
      );
    } finally {
      delete n.hooks.beforeEvaluate;
    }
    const r = await ok<{ status: string }>(bob.q, 'cqAcceptQuery', { id });
    expect(r.data.status).toBe('accepted');
    await eventually(
      () => peerOf(id),
      (p) => p?.status === 'answered',
    );
    expect((await peerOf(id))?.reason).toBeUndefined();
  });

  it('holds a query for its owner with the reason, announces it, and releases it only on accept', async () => {
    n.verdicts.set('bob', 'held');
    try {
      const id = await ask();
      await eventually(
        () => statusOf(id),
        (s) => s === 'held',
      );
      expect((await requested(bob.q))[id]!.decision.reason).toBe('held by the test condition');
      expect((await peerOf(id))?.status).toBe('sent');
      // The decision is announced from the outbox once its transaction committed: wait for it.
      const outcomes = async () => decided.filter((x) => x.d.queryId === id).map((x) => x.d.outcome);
      await eventually(outcomes, (o) => o.length > 0);
      expect(await outcomes()).toEqual(['held']);
      await ok(bob.q, 'cqListRequestedQueries', { status: 'held' });
      await ok(bob.q, 'cqAcceptQuery', { id });
      await eventually(
        () => peerOf(id),
        (p) => p?.status === 'answered',
      );
      await eventually(
        async () => decided.filter((x) => x.d.queryId === id).map((x) => `${x.d.kind}:${x.d.outcome}`),
        (o) => o.join() === 'auto:held,manual:accepted',
      );
    } finally {
      n.verdicts.delete('bob');
    }
  });

  it('cites only the sources an edited answer still draws on; the owner’s own words cite nothing', async () => {
    const quoted = await ask();
    await eventually(
      () => statusOf(quoted),
      (s) => s === 'pending',
    );
    // A first edit in the owner's own words, then one quoting the draft again: it cites it again.
    await ok(bob.q, 'cqUpdateEditAnswer', { query_id: quoted, new_answer: 'Let me think about it.' });
    expect((await requested(bob.q))[quoted]!.draft).toMatchObject({ citations: [] });
    const keep = await ok<{ citations: unknown[]; written_by_owner: boolean }>(bob.q, 'cqUpdateEditAnswer', {
      query_id: quoted,
      new_answer: 'In short: error-corrected logical qubits are the news.',
    });
    expect(keep.data).toMatchObject({ written_by_owner: false, citations: [{ source: BOB_DOC.source }] });
    expect(keep.text).toContain(`still draws on: ${BOB_DOC.source}`);

    const free = await ask();
    await eventually(
      () => statusOf(free),
      (s) => s === 'pending',
    );
    const own = await ok<{ citations: unknown[]; written_by_owner: boolean }>(bob.q, 'cqUpdateEditAnswer', {
      query_id: free,
      new_answer: 'I would rather talk about this over coffee next week.',
    });
    expect(own.data).toMatchObject({ written_by_owner: true, citations: [] });
    const listed = (await requested(bob.q))[free]!;
    expect(listed.draft).toMatchObject({ citations: [], strategy: 'manual', edited: true });
    expect((await ok(bob.q, 'cqListRequestedQueries')).text).toContain('Draft (written by the owner)');
    await ok(bob.q, 'cqAcceptQuery', { id: free });
    await eventually(
      async () => shared.find((a) => a.questionId === free),
      (a) => a !== undefined,
    );
    expect(shared.find((a) => a.questionId === free)).toMatchObject({ citations: [], writtenByOwner: true });
    await eventually(
      async () => (await asked()).questions.find((q) => q.id === free)?.answers[0],
      (a) => a !== undefined,
    );
    const answer = (await asked()).questions.find((q) => q.id === free)!.answers[0] as unknown as {
      citations: unknown[];
      written_by_owner?: boolean;
    };
    expect(answer).toMatchObject({ citations: [], written_by_owner: true });
    expect(decided.filter((x) => x.d.queryId === free).map((x) => x.d.outcome)).toEqual(
      expect.arrayContaining(['pending', 'edited', 'accepted']),
    );
  });
});
