import { ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Asked, type Node, startNode } from './support.js';

interface Source {
  source: string;
  excerpt: string;
}
interface Summary {
  summary: string;
  strategy: string;
  citations: Array<{ peer: string; excerpt: string; sources?: Source[] }>;
  points: Array<{
    text: string;
    peers: string[];
    disagreement: string | null;
    statements: Array<{ peer: string; text: string; sources?: Source[] }>;
  }>;
}

const QUESTION = 'What is the default request timeout and how do retries work?';

describe('cqSummarizeAnswers over MCP with several peers', () => {
  let n: Node;
  let alice: Awaited<ReturnType<Node['join']>>;
  let queryId: string;

  beforeAll(async () => {
    n = await startNode();
    alice = await n.join('alice');
    const peers = {
      bob: {
        source: 'http-client.md',
        text: 'The default request timeout is 30 seconds. Retries use exponential backoff, up to three attempts.',
      },
      carol: {
        source: 'network-notes.md',
        text: 'The default request timeout is 60 seconds. Retries use exponential backoff, up to three attempts.',
      },
      dave: {
        source: 'pooling.md',
        text: 'Every request reuses pooled connections, and the default timeout covers the whole request.',
      },
    };
    for (const [handle, doc] of Object.entries(peers)) {
      const p = await n.join(handle);
      n.docs.set(p.id, [doc]);
      n.verdicts.set(handle, 'accepted');
    }
    const r = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', {
      question: QUESTION,
      peers: ['bob', 'carol', 'dave'],
    });
    queryId = r.data.query_id;
    await vi.waitFor(
      async () => {
        const a = (await ok<Asked>(alice.q, 'cqListAskedQuestions', {})).data;
        if ((a.questions[0]?.answers.length ?? 0) !== 3) throw new Error('answers still on their way');
      },
      { timeout: 10_000, interval: 50 },
    );
  });
  afterAll(() => n.stop());

  it('merges the answers by point, attributes each point to its peers and flags where they disagree', async () => {
    const r = await ok<Summary>(alice.q, 'cqSummarizeAnswers', { related_question: queryId });
    const timeout = r.data.points.find((p) => p.text.includes('default request timeout is'))!;
    expect(timeout.peers.sort()).toEqual(['bob', 'carol']);
    expect(timeout.disagreement).toMatch(
      /figures differ: @bob 30 vs @carol 60|figures differ: @carol 60 vs @bob 30/,
    );
    const retries = r.data.points.find((p) => p.text.startsWith('Retries use exponential backoff'))!;
    expect(retries.peers.sort()).toEqual(['bob', 'carol']);
    expect(retries.disagreement).toBeNull();
    // Every peer's every sentence is in some point, attributed to that peer.
    for (const peer of ['bob', 'carol', 'dave'])
      expect(r.data.points.some((p) => p.peers.includes(peer))).toBe(true);
    expect(r.data.points.flatMap((p) => p.statements).every((s) => s.sources === undefined)).toBe(true);
    expect(r.text).toContain('Points made by several peers:');
    expect(r.text).toMatch(/— peers disagree: figures differ/);
    for (const peer of ['@bob', '@carol', '@dave']) expect(r.data.summary).toContain(peer);
  });

  it('keeps each peer’s citations with detailed_answer: 1, in text and structured content', async () => {
    const r = await ok<Summary>(alice.q, 'cqSummarizeAnswers', {
      related_question: queryId,
      detailed_answer: 1,
    });
    const timeout = r.data.points.find((p) => p.text.includes('default request timeout is'))!;
    const byPeer = Object.fromEntries(
      timeout.statements.map((s) => [s.peer, s.sources?.map((c) => c.source)]),
    );
    expect(byPeer).toEqual({ bob: ['http-client.md'], carol: ['network-notes.md'] });
    const dave = r.data.points.find((p) => p.peers.includes('dave'))!;
    expect(dave.statements[0]!.sources![0]!.source).toBe('pooling.md');
    expect(dave.statements[0]!.sources![0]!.excerpt).toContain('pooled connections');
    // The summary's own citations (peer sentences) carry the peer's sources too.
    for (const c of r.data.citations) {
      expect(c.sources?.length, c.excerpt).toBeGreaterThan(0);
      const expected = { bob: 'http-client.md', carol: 'network-notes.md', dave: 'pooling.md' }[c.peer];
      expect(c.sources!.every((s) => s.source === expected)).toBe(true);
    }
    expect(r.text).toContain('Points, by peer:');
    expect(r.text).toMatch(
      /@bob citing http-client\.md; @carol citing network-notes\.md|@carol citing network-notes\.md; @bob citing http-client\.md/,
    );
    expect(r.text).toContain('@dave citing pooling.md');
  });
});
