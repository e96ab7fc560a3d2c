import { type LoreService, loadNodeIdentity, MemoryDirectory, type ServiceDeps } from '@lore/kit';
import { appFetch, type Client, call, connectClient, ok, testDeps } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { ApprovalsRpc, type EvaluateQueryReply } from '@lore/schema';
import { createUsersService } from '@lore/users/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalsService } from '../src/index.js';

/** The gate over the real users, knowledge and approvals services on one in-process bus. */
describe('the gate before the conditions', () => {
  const t = testDeps({ LORE_RATE_LIMITS: 'false' });
  const services: LoreService[] = [];
  let deps: ServiceDeps;
  let anon: Client;
  const agents = new Map<string, { id: string; users: Client; approvals: Client; knowledge: Client }>();
  let n = 0;

  const join = async (handle: string, bio = '') => {
    const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
      username: handle,
      email: `${handle}@example.com`,
      displayName: handle,
      bio,
    });
    const [users, approvals, knowledge] = services;
    const a = {
      id: r.data.agent.id,
      users: await connectClient(appFetch(users!.app), { key: r.data.apiKey }),
      knowledge: await connectClient(appFetch(knowledge!.app), { key: r.data.apiKey }),
      approvals: await connectClient(appFetch(approvals!.app), { key: r.data.apiKey }),
    };
    agents.set(handle, a);
    return a;
  };
  const evaluate = async (asker: string, question: string, draft: string, sources: string[]) =>
    (await deps.bus.request(ApprovalsRpc.evaluate, {
      queryId: `qry-gate${String(++n).padStart(8, '0')}`,
      recipient: { id: agents.get('owner')!.id, handle: 'owner' },
      asker: {
        id: agents.get(asker)?.id ?? `id-${asker}`,
        handle: asker,
        profile: { displayName: asker, bio: 'Professor at a university.', skills: [], interests: [] },
      },
      question,
      draft: { text: draft, sources, excerpts: sources.map(() => draft) },
    })) as EvaluateQueryReply;

  beforeAll(async () => {
    const node = loadNodeIdentity(t.deps.config);
    const directory = new MemoryDirectory();
    await directory.registerNode(node.id, node.publicKey);
    deps = { ...t.deps, nodeId: node.id, node, directory };
    services.push(
      await createUsersService(deps),
      await createApprovalsService(deps),
      await createKnowledgeService(deps),
    );
    for (const s of services) await s.start();
    anon = await connectClient(appFetch(services[0]!.app));
    const owner = await join('owner');
    await join('partner_bot');
    await join('friend');
    await ok(owner.knowledge, 'updateKnowledgeSources', {
      file_name: 'typescript.md',
      file_content: '# TypeScript\n\nTypeScript generics keep the type of an argument.',
    });
    await ok(owner.knowledge, 'updateKnowledgeSources', {
      file_name: 'memo.md',
      file_content: '# Memo\n\nThe board approved the plan.',
      sharing: 'manual',
    });
  });
  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    await t.cleanup();
  });

  it('refuses a condition naming an agent that does not exist, naming the closest handle', async () => {
    const owner = agents.get('owner')!;
    const r = await call(owner.approvals, 'cqAddAutoApprovalCondition', {
      sentence: 'Approve all questions from partner_bot_x',
    });
    expect(r.error).toMatchObject({ code: 404, data: { field: 'sentence', closest: 'partner_bot' } });
    expect(r.error?.message).toContain('the closest handle is @partner_bot');
  });

  it('says traits rely on what askers say about themselves, and reads "from my connections"', async () => {
    const owner = agents.get('owner')!;
    const traits = await ok<{ understood_as: { senders: string } }>(
      owner.approvals,
      'cqAddAutoApprovalCondition',
      {
        sentence: 'Allow questions about TypeScript from academic users',
      },
    );
    expect(traits.data.understood_as.senders).toContain('relies on what askers say about themselves');
    const conn = await ok<{ understood_as: { senders: string; undecidable: string[] } }>(
      owner.approvals,
      'cqAddAutoApprovalCondition',
      { sentence: 'Allow questions from my connections' },
    );
    expect(conn.data.understood_as).toMatchObject({ undecidable: [] });
    expect(conn.data.understood_as.senders).toMatch(/your connections/);
    await ok(owner.approvals, 'cqAddAutoApprovalCondition', {
      sentence: 'Approve all questions from partner_bot',
    });
  });

  it('holds what looks like a secret whatever the conditions say, and logs every condition', async () => {
    const r = await evaluate(
      'partner_bot',
      'How do TypeScript generics work?',
      'The API key = sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      ['typescript.md'],
    );
    expect(r).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive', condition: null });
    expect(r.reason).toMatch(/^Held for you: the draft contains what looks like an API key or token/);
    expect(r.reason).not.toContain('sk_live');
    expect(r.checks.length).toBe(3);
  });

  it('holds answers drawing on a manual source, even for a named partner', async () => {
    const r = await evaluate('partner_bot', 'What did the board approve?', 'The board approved the plan.', [
      'memo.md',
    ]);
    expect(r).toMatchObject({ outcome: 'held', decidedBy: 'gate:manual-source' });
    expect(r.reason).toContain('memo.md, which you share manual');
    const gone = await evaluate('partner_bot', 'What is in old.md?', 'Old notes.', ['old.md']);
    expect(gone.reason).toContain('old.md, which you no longer have');
  });

  it('accepts a named partner by its bound id and a connection by the relation, not by handle or bio', async () => {
    expect(
      (
        await evaluate('partner_bot', 'How do TypeScript generics work?', 'Generics keep types.', [
          'typescript.md',
        ])
      ).outcome,
    ).toBe('accepted');
    // The same handle under another id is not the partner the owner named.
    const squat = (await deps.bus.request(ApprovalsRpc.evaluate, {
      queryId: 'qry-gatesquat0001',
      recipient: { id: agents.get('owner')!.id, handle: 'owner' },
      asker: { id: 'someone-else', handle: 'partner_bot', profile: null },
      question: 'Where do we eat?',
      draft: { text: 'At noon.', sources: ['typescript.md'], excerpts: ['At noon.'] },
    })) as EvaluateQueryReply;
    expect(squat.outcome).toBe('pending');
    const friend = agents.get('friend')!;
    expect((await evaluate('friend', 'Where do we eat?', 'At noon.', ['typescript.md'])).outcome).toBe(
      'pending',
    );
    await ok(friend.users, 'connect_agents', { agent: 'owner', purpose: 'Old colleagues.' });
    await ok(agents.get('owner')!.users, 'connect_agents', { agent: 'friend', purpose: 'Old colleagues.' });
    const r = await evaluate('friend', 'Where do we eat?', 'At noon.', ['typescript.md']);
    expect(r).toMatchObject({ outcome: 'accepted', condition: 'Allow questions from my connections' });
    expect(r.reason).toContain('@friend is one of your connections');
  });

  it('holds an answer whose cited source is outside the topic the question matched', async () => {
    await ok(agents.get('owner')!.knowledge, 'updateKnowledgeSources', {
      file_name: 'ops.md',
      file_content:
        '# Ops\n\nDeploys run on Tuesdays. Every deploy is watched by the on-call engineer, and deploy windows close at noon. ' +
        'The TypeScript client deploys too.',
    });
    const r = await evaluate('amy', 'When does the TypeScript client deploy?', 'On Tuesdays.', [
      'typescript.md',
      'ops.md',
    ]);
    expect(r).toMatchObject({ outcome: 'held', decidedBy: 'gate:scope' });
    expect(r.reason).toContain('draws on ops.md, which is not about what it allows');
  });
});
