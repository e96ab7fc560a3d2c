import { call, ok } from '@lore/kit/testing';
import { QuestionAsked } from '@lore/schema/queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOB_DOC, envelope, signed, startNode } from './support.js';

describe('the waiting questions one asker may leave with one owner', () => {
  let n: Awaited<ReturnType<typeof startNode>>;
  let alice: Awaited<ReturnType<typeof n.join>>;
  let bob: Awaited<ReturnType<typeof n.join>>;
  let dave: Awaited<ReturnType<typeof n.join>>;

  beforeAll(async () => {
    n = await startNode({
      LORE_RATE_LIMITS: 'true',
      LORE_WAITING_PER_ASKER: '2',
      LORE_QUERY_TTL_HOURS: '72',
    });
    alice = await n.join('alice');
    bob = await n.join('bob');
    dave = await n.join('dave');
    // Bob's drafts wait for him (no condition decides them): each question stays waiting.
    n.docs.set(bob.id, [BOB_DOC]);
  });
  afterAll(() => n.stop());

  it('is off with the other per-agent limits', async () => {
    const free = await startNode({ LORE_RATE_LIMITS: 'false', LORE_WAITING_PER_ASKER: '1' });
    try {
      const a = await free.join('ann');
      const b = await free.join('ben');
      free.docs.set(b.id, [BOB_DOC]);
      for (const i of [1, 2, 3])
        expect(
          (await call(a.q, 'cqAskQuestion', { question: `Quantum computing news (${i})?`, peers: ['ben'] }))
            .isError,
        ).toBeFalsy();
    } finally {
      await free.stop();
    }
  });

  const ask = (c: typeof alice.q, i: number, peers = ['bob']) =>
    call(c, 'cqAskQuestion', {
      question: `What are the latest developments in quantum computing (${i})?`,
      peers,
    });

  it('refuses the next question to that owner with 429 and when to retry, and nobody else is held back', async () => {
    for (const i of [1, 2]) expect((await ask(alice.q, i)).isError).toBeFalsy();
    await expect
      .poll(
        async () => (await ok<Record<string, { status: string }>>(bob.q, 'cqListRequestedQueries', {})).data,
      )
      .toSatisfy(
        (r: Record<string, { status: string }>) =>
          Object.values(r).filter((q) => q.status === 'pending').length === 2,
      );
    const third = await ask(alice.q, 3);
    expect(third.isError).toBe(true);
    expect(third.error?.code).toBe(429);
    expect(third.error?.message).toMatch(/@bob already has 2 of your questions waiting for an answer/);
    // The oldest expires in 72 hours: that is when asking again is sure to work.
    expect(Number(third.error?.data?.retryAfterSeconds)).toBeGreaterThan(71 * 3600);
    // Another asker, and another owner, are not affected.
    expect((await ask(dave.q, 4)).isError).toBeFalsy();
    expect((await ask(alice.q, 5, ['dave'])).isError).toBeFalsy();
    // The owner's inbox holds the two that were sent, not the refused one.
    const inbox = (await ok<Record<string, { from: string }>>(bob.q, 'cqListRequestedQueries', {})).data;
    expect(Object.values(inbox).filter((q) => q.from === 'alice')).toHaveLength(2);
  });

  it('does not record past the limit a question whose node skipped the check (an old or hostile node)', async () => {
    // Questions from carol straight onto the bus, as a node that does not check would send them.
    const carol = await n.join('carol');
    const ask = (i: number) =>
      n.deps.bus.publish(
        signed(
          n.node,
          envelope(
            QuestionAsked,
            {
              questionId: `qry-flood0000000${i}`,
              question: `What are the latest developments in quantum computing (flood ${i})?`,
              askedAt: new Date().toISOString(),
              expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
              asker: { id: carol.id, handle: 'carol', node: n.node.id, profile: null },
              recipients: [{ id: bob.id, handle: 'bob', node: n.node.id }],
            },
            n.node.id,
          ),
        ),
      );
    const fromCarol = async () =>
      Object.values(
        (await ok<Record<string, { from: string }>>(bob.q, 'cqListRequestedQueries', {})).data,
      ).filter((q) => q.from === 'carol').length;
    for (const i of [1, 2]) await ask(i);
    await expect.poll(fromCarol).toBe(2);
    await ask(3);
    // A later question from someone else is recorded, so the third of carol's had its turn.
    const r = await call(dave.q, 'cqAskQuestion', {
      question: 'Quantum computing news, please?',
      peers: ['bob'],
    });
    expect(r.isError).toBeFalsy();
    await expect
      .poll(
        async () =>
          Object.values(
            (await ok<Record<string, { from: string }>>(bob.q, 'cqListRequestedQueries', {})).data,
          ).filter((q) => q.from === 'dave').length,
      )
      .toBe(2);
    expect(await fromCarol()).toBe(2);
  });
});
