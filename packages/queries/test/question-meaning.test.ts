import { type Client, call, ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUESTION, startNode } from './support.js';

/** QUESTION said another way: no word of it but "latest" is in the question. */
const PARAPHRASE = 'news about qubit machines';
const OTHER = 'How do I keep a sourdough starter alive while on holiday?';

interface Summary {
  query_id: string;
  matched_by: string;
  found_by?: string[];
}

async function askBoth(n: Awaited<ReturnType<typeof startNode>>) {
  const alice = await n.join('alice');
  await n.join('bob');
  const ids: string[] = [];
  for (const question of [QUESTION, OTHER]) {
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', { question, peers: ['bob'] });
    ids.push(r.data.query_id);
  }
  return { alice: alice.q, quantum: ids[0]!, sourdough: ids[1]! };
}

const summarize = (c: Client, related_question: string) =>
  ok<Summary>(c, 'cqSummarizeAnswers', { related_question });

describe('cqSummarizeAnswers finds the asked question by meaning (local model, over MCP)', () => {
  let n: Awaited<ReturnType<typeof startNode>>;
  let s: Awaited<ReturnType<typeof askBoth>>;
  beforeAll(async () => {
    n = await startNode({ LORE_EMBEDDINGS: 'local' });
    s = await askBoth(n);
    // The questions' vectors are computed in the background after they are asked.
    const end = Date.now() + 120_000;
    while (!(await call(s.alice, 'cqSummarizeAnswers', { related_question: PARAPHRASE })).data) {
      if (Date.now() > end) throw new Error('the paraphrase was never found');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);
  afterAll(() => n.stop());

  it('finds the question worded otherwise, marked as found by meaning', async () => {
    const r = await summarize(s.alice, PARAPHRASE);
    expect(r.data).toMatchObject({ query_id: s.quantum, matched_by: 'search', found_by: ['meaning'] });
    const starter = await summarize(s.alice, 'maintaining a sourdough culture during travel');
    expect(starter.data.query_id).toBe(s.sourdough);
  });

  it('marks a match of words and meaning, and still never finds another asker’s question', async () => {
    const r = await summarize(s.alice, 'quantum computing developments');
    expect(r.data).toMatchObject({ query_id: s.quantum, found_by: ['words', 'meaning'] });
    const carol = await n.join('carol');
    expect((await call(carol.q, 'cqSummarizeAnswers', { related_question: PARAPHRASE })).error?.code).toBe(
      404,
    );
  });

  it('answers 404 for a question that is not close to any of the asker’s', async () => {
    expect(
      (await call(s.alice, 'cqSummarizeAnswers', { related_question: 'tax deductions for freelancers' }))
        .error?.code,
    ).toBe(404);
  });
});

describe('cqSummarizeAnswers by words alone (LORE_EMBEDDINGS=off)', () => {
  let n: Awaited<ReturnType<typeof startNode>>;
  let s: Awaited<ReturnType<typeof askBoth>>;
  beforeAll(async () => {
    n = await startNode();
    s = await askBoth(n);
  });
  afterAll(() => n.stop());

  it('finds the words, marked as found by words, and misses the paraphrase', async () => {
    const r = await summarize(s.alice, 'quantum developments');
    expect(r.data).toMatchObject({ query_id: s.quantum, matched_by: 'search', found_by: ['words'] });
    expect((await call(s.alice, 'cqSummarizeAnswers', { related_question: PARAPHRASE })).error?.code).toBe(
      404,
    );
  });
});
