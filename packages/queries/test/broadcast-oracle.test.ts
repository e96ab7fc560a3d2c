import { ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Asked, BOB_DOC, type Requested, startNode } from './support.js';

/**
 * A broadcast tells its asker nothing per peer until a peer's answer is released: a peer that
 * declines, or holds the question for its owner, looks exactly like one that found nothing, so
 * the asker cannot learn which agents hold something on a guessed word.
 */
describe('a broadcast seen from the asker', () => {
  let n: Awaited<ReturnType<typeof startNode>>;
  let alice: Awaited<ReturnType<typeof n.join>>;
  let bob: Awaited<ReturnType<typeof n.join>>;
  let carol: Awaited<ReturnType<typeof n.join>>;
  const question = async (id: string) =>
    (await ok<Asked>(alice.q, 'cqListAskedQuestions', {})).data.questions.find((q) => q.id === id)!;

  beforeAll(async () => {
    n = await startNode({ LORE_RATE_LIMITS: 'false' });
    alice = await n.join('alice');
    bob = await n.join('bob');
    carol = await n.join('carol');
    await n.join('dave');
    // Bob and carol hold something on it; dave holds nothing. Carol's answers leave on their own.
    n.docs.set(bob.id, [BOB_DOC]);
    n.docs.set(carol.id, [BOB_DOC]);
    n.verdicts.set('carol', 'accepted');
  });
  afterAll(() => n.stop());

  it('shows only the peers whose answer was released, whatever the others did', async () => {
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', {
      question: 'What are the latest developments in quantum computing?',
      peers: [],
    });
    const id = r.data.query_id;
    await expect
      .poll(async () => (await ok<Requested>(bob.q, 'cqListRequestedQueries')).data[id]?.status)
      .toBe('pending');
    // Bob declines by hand: a named asker would be told; a broadcast's asker is not.
    await ok(bob.q, 'cqRejectQuery', { id });
    await expect.poll(async () => (await question(id)).answers.length, { timeout: 10_000 }).toBe(1);
    const q = await question(id);
    expect(q.peers.map((p) => [p.peer, p.status])).toEqual([['carol', 'answered']]);
    const text = (await ok(alice.q, 'cqListAskedQuestions', {})).text;
    expect(text).not.toMatch(/@bob|@dave|declined|no-knowledge/);
    const summary = JSON.stringify(await ok(alice.q, 'cqSummarizeAnswers', { related_question: id }));
    expect(summary).not.toMatch(/@bob|@dave|declined/);
  });
});
