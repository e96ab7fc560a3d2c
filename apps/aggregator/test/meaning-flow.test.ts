import { createApprovalsService } from '@lore/approvals';
import { LOCAL_MODEL } from '@lore/embed';
import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService, MEANING_SCALES } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { KnowledgeRpc } from '@lore/schema';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

const NOTES: Record<string, string> = {
  'espresso.md':
    '# Espresso\n\nGrind finer when the shot runs fast; aim for 25 to 30 seconds for a double shot.',
  'houseplants.md':
    '# Houseplants\n\nWater a monstera when the top 5 cm of soil are dry; yellow leaves usually mean too much water.',
  'remote-access.md':
    '# Remote access\n\nConnect to the office network with WireGuard: install the client, import the profile from the IT portal and switch the tunnel on.',
};

type Requested = Record<
  string,
  {
    status: string;
    draft: { citations: Array<{ source: string }> } | null;
    question: string;
    closest?: Array<{ source: string; excerpt: string; score: number }>;
  }
>;

describe('a peer’s questions drafted from the owner’s notes by meaning (local model, all-in-one)', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let owner: { id: string; c: Client };
  let peer: { id: string; c: Client };

  const join = async (anon: Client, username: string) => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username,
      email: `${username}@example.com`,
      displayName: username,
    });
    return { id: r.data.agent.id, c: await connectClient(appFetch(lore.app), { key: r.data.apiKey }) };
  };
  const requested = async () => (await ok<Requested>(owner.c, 'cqListRequestedQueries')).data;

  beforeAll(async () => {
    lore = await startAllInOne(
      testConfig(dir.path, { LORE_RATE_LIMITS: 'false', LORE_EMBEDDINGS: 'local' }),
      {
        services: [
          { name: 'users', create: createUsersService },
          { name: 'knowledge', create: (deps) => createKnowledgeService(deps) },
          { name: 'queries', create: createQueriesService },
          { name: 'approvals', create: createApprovalsService },
        ],
      },
    );
    const anon = await connectClient(appFetch(lore.app));
    owner = await join(anon, 'owner');
    peer = await join(anon, 'peer');
    for (const [file_name, file_content] of Object.entries(NOTES))
      await ok(owner.c, 'updateKnowledgeSources', { file_name, file_content });
    // The notes' vectors are computed in the background after the uploads.
    await vi.waitFor(
      async () => {
        const r = (await lore.bus.request(KnowledgeRpc.retrieve.subject, {
          agentId: owner.id,
          query: 'How do I get onto the company network from home?',
          limit: 3,
        })) as { passages: Array<{ relevant: boolean }> };
        if (!r.passages.some((p) => p.relevant)) throw new Error('no vectors yet');
      },
      { timeout: 60_000, interval: 100 },
    );
  }, 90_000);
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  it.each([
    ['Hi! My espresso comes out way too quickly, what should I change?', 'espresso.md'],
    ['Quick question: how often should I give my swiss cheese plant a drink?', 'houseplants.md'],
    ['Hello, how do I get onto the company network from home?', 'remote-access.md'],
  ])('%s → a draft citing %s', async (question, note) => {
    const id = (await ok<{ query_id: string }>(peer.c, 'cqAskQuestion', { question, peers: ['owner'] })).data
      .query_id;
    await expect.poll(async () => (await requested())[id]?.status, { timeout: 20_000 }).toBe('pending');
    const draft = (await requested())[id]!.draft!;
    expect(draft.citations.length).toBeGreaterThan(0);
    expect(new Set(draft.citations.map((c) => c.source))).toEqual(new Set([note]));
  });

  it('drafts nothing for a question none of the notes answers', async () => {
    const question = 'Hi! Who won the football World Cup in 2018?';
    const id = (await ok<{ query_id: string }>(peer.c, 'cqAskQuestion', { question, peers: ['owner'] })).data
      .query_id;
    await expect.poll(async () => (await requested())[id]?.status, { timeout: 20_000 }).toBe('no-knowledge');
    expect((await requested())[id]?.draft).toBeNull();
  });

  it('shows the owner the passages that came closest to a question nothing matched, and the asker nothing of them', async () => {
    const question = 'Hello! Which grass seed grows best in a shady garden lawn?';
    const id = (await ok<{ query_id: string }>(peer.c, 'cqAskQuestion', { question, peers: ['owner'] })).data
      .query_id;
    await expect.poll(async () => (await requested())[id]?.status, { timeout: 20_000 }).toBe('no-knowledge');
    const listed = await ok<Requested>(owner.c, 'cqListRequestedQueries', { status: 'no-knowledge' });
    const closest = listed.data[id]!.closest!;
    // All three notes are closer than nothing, each below the relevance threshold, best first.
    expect(closest.map((c) => c.source).sort()).toEqual(Object.keys(NOTES).sort());
    const scale = MEANING_SCALES[LOCAL_MODEL]!;
    for (const c of closest) {
      expect(c.score).toBeLessThan(scale.threshold);
      expect(NOTES[c.source]!.replace(/\s+/g, ' ')).toContain(c.excerpt.replace(/…/g, '').trim());
    }
    expect(closest.map((c) => c.score)).toEqual([...closest.map((c) => c.score)].sort((a, b) => b - a));
    expect(listed.text).toContain('Closest passages (below the relevance threshold)');
    expect(listed.text).toContain(closest[0]!.source);

    // The asker's side: still "sent", and no word of the owner's notes in anything it can read.
    const mine = await ok<{ questions: Array<{ id: string; peers: Array<{ status: string }> }> }>(
      peer.c,
      'cqListAskedQuestions',
    );
    expect(mine.data.questions.find((q) => q.id === id)?.peers[0]?.status).toBe('sent');
    // No answer yet: whatever the summary says (an error or an empty summary), it says nothing of the notes.
    const summary = await call(peer.c, 'cqSummarizeAnswers', { related_question: id });
    const theirs = [
      JSON.stringify(mine.data),
      mine.text,
      JSON.stringify(summary.data),
      summary.text,
      JSON.stringify((await ok<Requested>(peer.c, 'cqListRequestedQueries')).data),
    ].join('\n');
    expect(theirs).not.toMatch(/closest/i);
    for (const c of closest) expect(theirs).not.toContain(c.excerpt.replace(/…/g, '').trim().slice(0, 40));
    for (const note of Object.keys(NOTES)) expect(theirs).not.toContain(note);
  });
});
