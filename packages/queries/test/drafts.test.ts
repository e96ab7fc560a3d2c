import { ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Node, type Requested, startNode } from './support.js';

describe('drafts over MCP', () => {
  let n: Node;
  let alice: Awaited<ReturnType<Node['join']>>;
  let bob: Awaited<ReturnType<Node['join']>>;

  beforeAll(async () => {
    n = await startNode();
    alice = await n.join('alice');
    bob = await n.join('bob');
    n.docs.set(bob.id, [
      {
        source: 'middleware.md',
        text:
          '# Logger middleware\n\nEnable the logger middleware before your routes:\n\n' +
          "```ts\nimport { logger } from 'hono/logger';\n\napp.use(logger());\n```\n\n" +
          'The logger middleware prints one line per request.',
      },
      {
        source: 'arc.md',
        text:
          'Arc<T> is a thread-safe reference-counting pointer: cloning an Arc increments a shared count, ' +
          'and the value is dropped when the last Arc goes away. Arc stands for Atomically Reference Counted.',
      },
      {
        source: 'pointers.md',
        text: 'Rc<T> counts references within one thread; share it across threads and the compiler refuses.',
      },
    ]);
  });
  afterAll(() => n.stop());

  const draftOf = async (question: string) => {
    const { data } = await ok<{ query_id: string }>(alice.q, 'cqAskQuestion', { question, peers: ['bob'] });
    let draft: Requested[string]['draft'] = null;
    await vi.waitFor(
      async () => {
        draft = (await ok<Requested>(bob.q, 'cqListRequestedQueries', {})).data[data.query_id]?.draft ?? null;
        if (!draft) throw new Error('no draft yet');
      },
      { timeout: 10_000, interval: 50 },
    );
    return draft!;
  };

  it('keeps a code block whole in the draft, line breaks and all, and cites it', async () => {
    const draft = await draftOf('How do I enable the logger middleware?');
    expect(draft.strategy).toBe('extractive');
    expect(draft.text).toContain(
      "Enable the logger middleware before your routes:\n```ts\nimport { logger } from 'hono/logger';\n\napp.use(logger());\n```\n[",
    );
    expect(draft.citations.map((c) => c.source)).toContain('middleware.md');
  });

  it('says plainly which part of the question the knowledge does not answer', async () => {
    const draft = await draftOf('How do I enable the logger middleware and does it support JSON output?');
    expect(draft.text).toContain('logger middleware');
    expect(draft.text).toMatch(
      /The knowledge base only partly answers this question: it says nothing about “does it support JSON output”\.$/,
    );
  });

  it('never says the knowledge is silent on what the question is set in when the passages answer it', async () => {
    const draft = await draftOf('What happens when the last Arc goes away in Rust?');
    expect(draft.text).toContain('the value is dropped when the last Arc goes away');
    expect(draft.text).not.toContain('says nothing about Rust');
    expect(draft.text).not.toContain('only partly answers');
    expect(draft.text).toMatch(
      /The passages quoted do not name Rust, so this answer may not be specific to it\.$/,
    );
  });
});
