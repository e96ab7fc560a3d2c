import { call, ok } from '@lore/kit/testing';
import { AnswerWithheld, QuestionAsked } from '@lore/schema/queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOB_DOC, envelope, QUESTION, type Requested, signed, startNode } from './support.js';

/** A note of dave's that shares one word with QUESTION: retrieved, never relevant. */
const DAVE_DOC = {
  source: 'espresso.md',
  text: 'Grind finer when the espresso shot runs fast; the latest beans need 25 to 30 seconds.',
};

type Closest = Requested[string] & { question: string; closest?: Array<{ source: string; excerpt: string }> };

/**
 * Only a broadcast that found nothing relevant is dropped by its recipient; a question asked by
 * name reaches its owner whatever was found. The asker's node says which it was, so a hostile one
 * gains nothing by lying: a broadcast copy tells the asker nothing but a released answer, and
 * copies asked by name count against the waiting limit like any other.
 */
describe('a broadcast and a named question in the recipient’s inbox', () => {
  let n: Awaited<ReturnType<typeof startNode>>;
  let alice: Awaited<ReturnType<typeof n.join>>;
  let bob: Awaited<ReturnType<typeof n.join>>;
  let dave: Awaited<ReturnType<typeof n.join>>;
  let carol: Awaited<ReturnType<typeof n.join>>;
  const withheld: Array<{ questionId: string; recipientHandle: string; reason: string }> = [];
  const inbox = async (who: typeof bob) =>
    (await ok<Record<string, Closest>>(who.q, 'cqListRequestedQueries')).data;
  const stats = async () =>
    (
      (await n.deps.bus.request('rpc.queries.stats', { since: new Date(0).toISOString() })) as {
        figures: Record<string, number>;
      }
    ).figures;

  beforeAll(async () => {
    n = await startNode({ LORE_RATE_LIMITS: 'true', LORE_WAITING_PER_ASKER: '2' });
    alice = await n.join('alice');
    bob = await n.join('bob');
    dave = await n.join('dave');
    carol = await n.join('carol');
    n.docs.set(bob.id, [BOB_DOC]);
    n.docs.set(dave.id, [DAVE_DOC]);
    await n.deps.bus.listen(AnswerWithheld.subject, (e) => withheld.push(e.payload as (typeof withheld)[0]));
  });
  afterAll(() => n.stop());

  it('reaches only the recipient who holds something relevant when broadcast', async () => {
    const from = n.retrievals.length;
    const r = await ok<{ query_id: string; broadcast: boolean }>(alice.q, 'cqAskQuestion', {
      question: QUESTION,
      peers: [],
    });
    expect(r.data.broadcast).toBe(true);
    const id = r.data.query_id;
    await expect.poll(async () => (await inbox(bob))[id]?.status).toBe('pending');
    // Dave's knowledge was asked, and once nothing is left in progress his copy is gone, not waiting.
    await expect.poll(() => n.retrievals.slice(from).includes(dave.id)).toBe(true);
    await expect.poll(async () => (await stats()).queriesInProgress).toBe(0);
    expect((await inbox(dave))[id]).toBeUndefined();
    expect((await inbox(carol))[id]).toBeUndefined();
    expect((await stats()).queriesNoKnowledge).toBe(0);
  });

  it('reaches its owner when asked by name, with the closest passages, though nothing matched', async () => {
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', {
      question: QUESTION,
      peers: ['dave'],
    });
    const id = r.data.query_id;
    await expect.poll(async () => (await inbox(dave))[id]?.status).toBe('no-knowledge');
    const copy = (await inbox(dave))[id]!;
    expect(copy.draft).toBeNull();
    expect(copy.closest?.map((c) => c.source)).toEqual(['espresso.md']);
    // The asker sees the same "waiting for the owner" as for a draft.
    const asked = await ok<{
      questions: Array<{ id: string; peers: Array<{ peer: string; status: string }> }>;
    }>(alice.q, 'cqListAskedQuestions', {});
    expect(asked.data.questions.find((q) => q.id === id)?.peers).toEqual([
      expect.objectContaining({ peer: 'dave', status: 'sent' }),
    ]);
  });

  /** A question of carol's put straight onto the bus, as her node (old or hostile) chose to send it. */
  const forged = (questionId: string, question: string, to: Array<typeof bob>, broadcast?: boolean) =>
    n.deps.bus.publish(
      signed(
        n.node,
        envelope(
          QuestionAsked,
          {
            questionId,
            question,
            askedAt: new Date().toISOString(),
            expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
            asker: { id: carol.id, handle: 'carol', node: n.node.id, profile: null },
            recipients: to.map((p) => ({ id: p.id, handle: p === bob ? 'bob' : 'dave', node: n.node.id })),
            ...(broadcast === undefined ? {} : { broadcast }),
          },
          n.node.id,
        ),
      ),
    );

  it('tells an asker who calls a named question a broadcast nothing about who held something', async () => {
    // Bob holds something on both; dave on neither. One is flagged a broadcast, one asked by name.
    await forged('qry-flagged000001', QUESTION, [bob, dave], true);
    await forged('qry-byname0000001', `${QUESTION} (by name)`, [bob, dave]);
    await expect.poll(async () => (await inbox(bob))['qry-flagged000001']?.status).toBe('pending');
    await expect.poll(async () => (await inbox(bob))['qry-byname0000001']?.status).toBe('pending');
    await expect.poll(async () => (await inbox(dave))['qry-byname0000001']?.status).toBe('no-knowledge');
    await expect.poll(async () => (await stats()).queriesInProgress).toBe(0);
    expect((await inbox(dave))['qry-flagged000001']).toBeUndefined();
    // Bob declines both, the flagged one first: only the one asked by name is announced to carol.
    await ok(bob.q, 'cqRejectQuery', { id: 'qry-flagged000001' });
    await ok(bob.q, 'cqRejectQuery', { id: 'qry-byname0000001' });
    await expect
      .poll(() => withheld.filter((w) => w.questionId === 'qry-byname0000001').map((w) => w.reason))
      .toEqual(['declined']);
    expect(withheld.filter((w) => w.questionId === 'qry-flagged000001')).toEqual([]);
    // Dave still has the named one to answer or decline; his decline reaches carol like bob's.
    await ok(dave.q, 'cqRejectQuery', { id: 'qry-byname0000001' });
    await expect
      .poll(() => withheld.filter((w) => w.questionId === 'qry-byname0000001').map((w) => w.recipientHandle))
      .toEqual(['bob', 'dave']);
  });

  it('keeps a broadcast sent as named questions within the waiting limit of each inbox', async () => {
    const fromCarol = async () =>
      Object.values(await inbox(dave)).filter((q) => q.from === 'carol' && q.status === 'no-knowledge')
        .length;
    // Carol's node skips its own check and sends dave question after question, none flagged a broadcast.
    for (const i of [1, 2, 3])
      await forged(`qry-flood0000000${i}`, `${QUESTION} (flood ${i})`, [dave], false);
    // A later question from someone else is recorded, so the third of carol's had its turn.
    const erin = await n.join('erin');
    expect(
      (await call(erin.q, 'cqAskQuestion', { question: `${QUESTION} Again?`, peers: ['dave'] })).isError,
    ).toBeFalsy();
    await expect
      .poll(
        async () =>
          Object.values(await inbox(dave)).filter((q) => q.question === `${QUESTION} Again?`).length,
      )
      .toBe(1);
    expect(await fromCarol()).toBe(2);
  });
});
