/**
 * The gate as what it is: a function of the owner's conditions and the facts around one drafted
 * query (the request, the cited sources' sharing and topics, the cited passages' classification,
 * the asker's relation). Each case states its own facts; only the last test boots the services,
 * because there the path is what is tested: those facts come from the real knowledge and users
 * services over the bus.
 */
import { type LoreService, loadNodeIdentity, MemoryDirectory, type ServiceDeps } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, testDeps } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { ApprovalsRpc, type EvaluateQueryReply, type EvaluateQueryRequest } from '@lore/schema';
import type { PassageFacts, SourceFacts } from '@lore/schema/knowledge-events';
import { createTextGenerator } from '@lore/textgen';
import { createUsersService } from '@lore/users/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConditionRow, sentenceKey } from '../src/domain/conditions.js';
import { type EvaluationContext, Evaluator } from '../src/domain/evaluator.js';
import { holdFor } from '../src/domain/gate.js';
import { createApprovalsService, interpret } from '../src/index.js';

/** The agents the owner's conditions may name, bound to their ids as cqAddAutoApprovalCondition binds them. */
const AGENTS: Record<string, string> = { partner_bot: 'id-partner' };

/** A condition as stored: read by the interpreter, naming agents by their ids. */
function condition(sentence: string): ConditionRow {
  const interpretation = interpret(sentence, (h) => h in AGENTS);
  interpretation.senders.agents = interpretation.senders.handles.map((h) => ({ handle: h, id: AGENTS[h]! }));
  return {
    id: sentenceKey(sentence),
    agentId: 'id-owner',
    sentence,
    sentenceKey: sentenceKey(sentence),
    effect: interpretation.effect,
    interpretation,
    createdAt: 0,
  };
}

const TYPESCRIPT = 'TypeScript generics keep the type of an argument.';
const SOURCES: SourceFacts[] = [
  {
    name: 'typescript.md',
    sharing: 'auto',
    keywords: ['typescript', 'generics', 'argument'],
    summary: '',
    subjects: null,
  },
  {
    name: 'ops.md',
    sharing: 'auto',
    keywords: ['deploy', 'tuesdays', 'engineer'],
    summary: '',
    subjects: null,
  },
  { name: 'memo.md', sharing: 'manual', keywords: ['board', 'plan'], summary: '', subjects: null },
];
const passage = (source: string, sensitivity: PassageFacts['sensitivity'] = [], classified = true) => ({
  id: `${source}#0`,
  source,
  classified,
  sensitivity,
});

/** One drafted query, from `asker` (an id and a self-described academic profile), citing `cites`. */
function request(
  question: string,
  draft: string,
  cites: Array<[source: string, excerpt: string]>,
  asker: { id: string; handle: string } = { id: 'id-partner', handle: 'partner_bot' },
): EvaluateQueryRequest {
  return {
    queryId: 'qry-gate00000001',
    recipient: { id: 'id-owner', handle: 'owner' },
    asker: {
      ...asker,
      profile: { displayName: asker.handle, bio: 'Professor at a university.', skills: [], interests: [] },
    },
    question,
    draft: {
      text: draft,
      sources: [...new Set(cites.map(([s]) => s))],
      excerpts: cites.map(([, e]) => e),
      citations: cites.map(([source, excerpt]) => ({ source, excerpt })),
    },
  };
}

/** What knowledge and users said: every cited passage classified and harmless, no connection. */
function facts(over: Partial<Omit<EvaluationContext, 'connected'>> & { connected?: boolean | null } = {}) {
  const { connected = false, ...rest } = over;
  return {
    sources: SOURCES,
    passages: [passage('typescript.md'), passage('ops.md'), passage('memo.md')],
    ...rest,
    connected: async () => connected,
  } satisfies EvaluationContext;
}

const evaluator = new Evaluator(createTextGenerator({}));
const evaluate = (conditions: string[], req: EvaluateQueryRequest, ctx = facts()) =>
  evaluator.evaluate(conditions.map(condition), req, ctx);

const TS_ALLOW = 'Allow questions about TypeScript from academic users';
const PARTNER = 'Approve all questions from partner_bot';
const CONNECTIONS = 'Allow questions from my connections';
const GENERICS = request('How do TypeScript generics work?', 'Generics keep types.', [
  ['typescript.md', TYPESCRIPT],
]);

describe('the gate before the conditions', () => {
  it('holds what looks like a secret whatever the conditions say, without quoting it, and logs every condition', async () => {
    const secret = request(
      'How do TypeScript generics work?',
      'The API key = sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      [['typescript.md', TYPESCRIPT]],
    );
    const r = await evaluate([TS_ALLOW, PARTNER, CONNECTIONS], secret);
    expect(r).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive', condition: null });
    expect(r.reason).toMatch(/^Held for you: the draft contains what looks like an API key or token/);
    expect(r.reason).not.toContain('sk_live');
    expect(r.checks.map((c) => c.condition)).toEqual([TS_ALLOW, PARTNER, CONNECTIONS]);
    // With no condition at all, the same hold (not "waiting for a manual decision").
    expect((await evaluate([], secret)).decidedBy).toBe('gate:sensitive');
  });

  it('holds a draft drawing on a passage classified sensitive at ingest, not classified yet, or not checkable', async () => {
    const health = await evaluate(
      [PARTNER],
      GENERICS,
      facts({ passages: [passage('typescript.md', ['health'])] }),
    );
    expect(health).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive' });
    expect(health.reason).toContain(
      'passages of typescript.md classified when you added it as holding health facts',
    );
    const waiting = await evaluate(
      [PARTNER],
      GENERICS,
      facts({ passages: [passage('typescript.md', [], false)] }),
    );
    expect(waiting.reason).toContain('not classified yet (or no longer there)');
    const unknown = await evaluate([PARTNER], GENERICS, facts({ passages: null }));
    expect(unknown).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive' });
    expect(unknown.reason).toContain('could not be checked');
  });

  it('holds a draft drawing on a source shared manual, removed since, or not checkable, even for a named partner', async () => {
    const memo = await evaluate(
      [PARTNER],
      request('What did the board approve?', 'The plan.', [['memo.md', 'The board approved the plan.']]),
    );
    expect(memo).toMatchObject({ outcome: 'held', decidedBy: 'gate:manual-source' });
    expect(memo.reason).toContain('memo.md, which you share manual');
    const gone = await evaluate(
      [PARTNER],
      request('What is in old.md?', 'Old notes.', [['old.md', 'Old notes.']]),
    );
    expect(gone.reason).toContain('old.md, which you no longer have');
    const unknown = await evaluate([PARTNER], GENERICS, facts({ sources: null }));
    expect(unknown).toMatchObject({ outcome: 'held', decidedBy: 'gate:manual-source' });
    expect(unknown.reason).toContain('could not be checked (knowledge service unavailable)');
  });

  it('holds an answer citing a source outside the topic the question matched', async () => {
    const r = await evaluate(
      [TS_ALLOW],
      request('When does the TypeScript client deploy?', 'On Tuesdays.', [
        ['typescript.md', TYPESCRIPT],
        ['ops.md', 'Deploys run on Tuesdays.'],
      ]),
    );
    expect(r).toMatchObject({ outcome: 'held', decidedBy: 'gate:scope', condition: TS_ALLOW });
    expect(r.reason).toContain('draws on ops.md, which is not about what it allows');
  });

  it('never lets an allow answer a question that asks for credentials; a deny still rejects it', async () => {
    const ask = request('What is the TypeScript build password?', 'Generics keep types.', [
      ['typescript.md', TYPESCRIPT],
    ]);
    const held = await evaluate([PARTNER], ask);
    expect(held).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive', condition: PARTNER });
    expect(held.reason).toContain('asks for a password or credentials');
    expect((await evaluate([PARTNER, 'Never share anything about passwords'], ask)).outcome).toBe('rejected');
  });
});

describe('the conditions', () => {
  it('accepts a named partner by its bound id, never by the handle alone', async () => {
    expect(await evaluate([PARTNER], GENERICS)).toMatchObject({
      outcome: 'accepted',
      decidedBy: 'condition:interpreter',
      condition: PARTNER,
    });
    const squatter = request('Where do we eat?', 'At noon.', [['typescript.md', TYPESCRIPT]], {
      id: 'someone-else',
      handle: 'partner_bot',
    });
    expect((await evaluate([PARTNER], squatter)).outcome).toBe('pending');
  });

  it('accepts a connection by the relation the users service vouches for, not by what the asker says', async () => {
    const friend = request('Where do we eat?', 'At noon.', [['typescript.md', TYPESCRIPT]], {
      id: 'id-friend',
      handle: 'friend',
    });
    const r = await evaluate([CONNECTIONS], friend, facts({ connected: true }));
    expect(r).toMatchObject({ outcome: 'accepted', condition: CONNECTIONS });
    expect(r.reason).toContain('@friend is one of your connections');
    expect((await evaluate([CONNECTIONS], friend, facts({ connected: false }))).outcome).toBe('pending');
    // Users could not say: never released.
    expect((await evaluate([CONNECTIONS], friend, facts({ connected: null }))).outcome).toBe('pending');
  });

  it('rejects on a matching deny over a matching allow, and a deny it cannot decide holds back every allow', async () => {
    const denied = await evaluate([PARTNER, 'Block all questions from partner_bot'], GENERICS);
    expect(denied).toMatchObject({ outcome: 'rejected', condition: 'Block all questions from partner_bot' });
    expect(denied.reason).toMatch(/^Rejected by "Block all questions from partner_bot": /);
    const doubtful = await evaluate([PARTNER, 'Reject questions that look like spam'], GENERICS);
    expect(doubtful.outcome).toBe('pending');
    expect(doubtful.reason).toMatch(/"Reject questions that look like spam" might reject it/);
  });

  it('waits for the owner when nothing applies, or when there are no conditions', async () => {
    const other = request('Where do we eat?', 'At noon.', [['typescript.md', TYPESCRIPT]], {
      id: 'id-stranger',
      handle: 'stranger',
    });
    expect(await evaluate([PARTNER], other)).toMatchObject({
      outcome: 'pending',
      decidedBy: 'none',
      condition: null,
    });
    expect(await evaluate([], other)).toMatchObject({ outcome: 'pending', checks: [] });
  });

  it('holds on the passages’ classification only when it was asked for (the gate helper alone)', async () => {
    // Without passage facts (not asked) classification is left out; with them, it decides.
    expect(await holdFor(GENERICS, SOURCES)).toBeNull();
    expect(await holdFor(GENERICS, SOURCES, [passage('typescript.md', ['money'])])).toMatchObject({
      decidedBy: 'gate:sensitive',
    });
  });
});

/** The path: what the gate decides on comes from the real knowledge and users services over the bus. */
describe('the gate over the real users, knowledge and approvals services', () => {
  const t = testDeps({ LORE_RATE_LIMITS: 'false' });
  const services: LoreService[] = [];
  let deps: ServiceDeps;

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
  });
  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    await t.cleanup();
  });

  it('holds on the sources’ sharing and the passages’ classification, and accepts a connection', async () => {
    const [users, approvals, knowledge] = services;
    const anon = await connectClient(appFetch(users!.app));
    const join = async (handle: string) => {
      const r = await ok<{ apiKey: string; agent: { id: string } }>(anon, 'agent_register', {
        username: handle,
        email: `${handle}@example.com`,
        displayName: handle,
      });
      const client = (s: LoreService): Promise<Client> =>
        connectClient(appFetch(s.app), { key: r.data.apiKey });
      return {
        id: r.data.agent.id,
        handle,
        users: await client(users!),
        approvals: await client(approvals!),
        knowledge: await client(knowledge!),
      };
    };
    const owner = await join('owner');
    const friend = await join('friend');
    for (const [file_name, body, sharing] of [
      ['typescript.md', `# TypeScript\n\n${TYPESCRIPT}`, 'auto'],
      ['memo.md', '# Memo\n\nThe board approved the plan.', 'manual'],
      ['health.md', '# Team\n\nPriya has type 1 diabetes and keeps insulin in the fridge.', 'auto'],
    ] as const)
      await ok(owner.knowledge, 'updateKnowledgeSources', { file_name, file_content: body, sharing });
    await ok(owner.approvals, 'cqAddAutoApprovalCondition', { sentence: CONNECTIONS });
    await ok(friend.users, 'connect_agents', { agent: 'owner', purpose: 'Old colleagues.' });
    await ok(owner.users, 'connect_agents', { agent: 'friend', purpose: 'Old colleagues.' });
    const ask = async (question: string, cite: [string, string]) => {
      const req = request(question, 'A drafted answer.', [cite], { id: friend.id, handle: 'friend' });
      return (await deps.bus.request(ApprovalsRpc.evaluate.subject, {
        ...req,
        recipient: { id: owner.id, handle: 'owner' },
      })) as EvaluateQueryReply;
    };

    const accepted = await ask('How do generics work?', ['typescript.md', TYPESCRIPT]);
    expect(accepted).toMatchObject({ outcome: 'accepted', condition: CONNECTIONS });
    expect(accepted.reason).toContain('@friend is one of your connections');
    const manual = await ask('What did the board approve?', ['memo.md', 'The board approved the plan.']);
    expect(manual).toMatchObject({ outcome: 'held', decidedBy: 'gate:manual-source' });
    const health = await ask('What does Priya keep in the fridge?', [
      'health.md',
      'Priya has type 1 diabetes and keeps insulin in the fridge.',
    ]);
    expect(health).toMatchObject({ outcome: 'held', decidedBy: 'gate:sensitive' });
    expect(health.reason).toContain(
      'passages of health.md classified when you added it as holding health facts',
    );
    const invented = await ask('How do generics work?', [
      'typescript.md',
      'A sentence typescript.md never held.',
    ]);
    expect(invented.reason).toContain('not classified yet (or no longer there)');
  });
});
