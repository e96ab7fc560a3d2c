/**
 * The authorization matrix: every tool of the catalog called as the owner of a resource, as
 * another agent, with no key and with bad keys (unknown, revoked by rotation, malformed). Who may
 * do what is a table; every result of a caller who is not the owner is searched for the owner's
 * private data (keys, emails, sources, drafts, questions, DMs, conditions, connection requests).
 * That keys never reach the logs is keys-in-logs.test.ts (a Lore process, in `pnpm test:slow`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@lore/kit/testing';
import { APPS_HOST, appFetch, connectClient } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, call, type Lore, ok, outcomeOf, startLore, waitFor } from './support.js';

const DOCS_FOLDER = join(tmpdir(), `lore-authz-docs-${process.pid}`);
mkdirSync(DOCS_FOLDER, { recursive: true });
writeFileSync(
  join(DOCS_FOLDER, 'ledgers.md'),
  '# Ledgers\n\nDouble-entry ledgers balance debits and credits.',
);

/** Private data of alice (the owner) and carol (who deals with her): none of it may reach bob. */
const SOURCE_NAME = 'ledger-5520918463.md';
const SOURCE_SECRET = '7731904582';
const LEDGER = `# Ledger

The vault combination recorded in the ledger is ${SOURCE_SECRET}. The ledger records every vault deposit and every vault withdrawal.
Vault deposits are counted each evening, and the ledger is closed each month. The vault combination changes every quarter.
`;
const MARK = {
  aliceEmail: 'alice.hidden.mailbox',
  carolEmail: 'carol.secret.inbox',
  sourceName: SOURCE_NAME,
  sourceText: SOURCE_SECRET,
  question: 'heliotrope', // carol's questions to alice
  asked: 'quindecim', // alice's question to carol
  dm: 'obsidian-lighthouse',
  condition: 'zanthoxylum',
  purpose: 'periwinkle',
  edited: 'marzipan',
};

type Expect = 'ok' | number | number[];
interface Cell {
  args: () => Record<string, unknown>;
  expect: Expect;
  /** State or content checks after the call (positive controls for the owner, "unchanged" for the other). */
  check?: (r: ReturnType<typeof outcomeOf>) => Promise<void> | void;
}
interface Row {
  tool: string;
  owner: Cell;
  other: Cell;
  /** What a call without a key gets; 401 unless the tool is public. */
  anonymous?: Expect;
}

describe('authorization matrix over the whole catalog', () => {
  let l: Lore;
  let alice: Agent;
  let bob: Agent;
  let carol: Agent;
  const ids: Record<string, string> = {};
  const keys: string[] = [];
  let revokedKey: string;
  let cells = 0;
  const log: string[] = [];

  const secretsOf = (extra: string[] = []) => [...keys, ...Object.values(MARK), ...extra];

  /** Call and return the outcome; keys the call itself hands out (register, rotate) are not leaks. */
  async function attempt(client: Client, tool: string, args: Record<string, unknown>) {
    const raw = await client.callTool({ name: tool, arguments: args });
    const o = outcomeOf(raw as never);
    const own = (raw.structuredContent as { apiKey?: string } | undefined)?.apiKey;
    const serialized = JSON.stringify(raw)
      .split(own ?? '\u0000never')
      .join('<own key>');
    return { o, serialized, own };
  }

  const matches = (code: number | undefined, ok: boolean, e: Expect) =>
    e === 'ok' ? ok : Array.isArray(e) ? !ok && e.includes(code!) : !ok && code === e;

  beforeAll(async () => {
    l = await startLore({ LORE_RATE_LIMITS: 'false', LORE_DOCS_OPERATORS: 'alice' });
    alice = await l.register('alice', { email: `${MARK.aliceEmail}@example.com`, bio: 'Keeper of ledgers.' });
    bob = await l.register('bob', { bio: 'Curious about everything.' });
    carol = await l.register('carol', { email: `${MARK.carolEmail}@example.com`, bio: 'Explorer.' });
    const dave = await l.register('dave');
    revokedKey = dave.key;
    const rotated = await ok<{ apiKey: string }>(dave.client, 'agent_rotate_key', {});
    keys.push(alice.key, bob.key, carol.key, dave.key, rotated.data.apiKey);

    // Shared manual: only the names of sources shared auto are public (cqGetUserDescriptions).
    await ok(alice.client, 'updateKnowledgeSources', {
      file_name: SOURCE_NAME,
      file_content: LEDGER,
      sharing: 'manual',
    });
    await ok(alice.client, 'updateKnowledgeSources', {
      file_name: 'scratch.md',
      file_content: 'Scratch notes about vault paint colours.',
    });
    // Questions from carol to alice: to accept, reject and edit, with the tools and with the inbox app's.
    for (const [k, topic] of [
      ['q1', 'expedition'],
      ['q2', 'survey'],
      ['q3', 'archive'],
      ['q4', 'harbour'],
      ['q5', 'orchard'],
      ['q6', 'lantern'],
    ] as const) {
      const q = await ok<{ query_id: string }>(carol.client, 'cqAskQuestion', {
        question: `What is the vault combination recorded in the ledger for the ${MARK.question} ${topic}?`,
        peers: ['alice'],
      });
      ids[k] = q.data.query_id;
    }
    await waitFor(
      "alice's drafts for carol's three questions",
      async () =>
        (
          await ok<Record<string, { status: string; draft: unknown }>>(
            alice.client,
            'cqListRequestedQueries',
            {},
          )
        ).data,
      (r) =>
        ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].every(
          (k) => ['pending', 'held'].includes(r[ids[k]!]?.status ?? '') && !!r[ids[k]!]?.draft,
        ),
    );
    const asked = await ok<{ query_id: string }>(alice.client, 'cqAskQuestion', {
      question: `Which fertilizer suits the ${MARK.asked} garden tomatoes?`,
      peers: ['carol'],
    });
    ids.asked = asked.data.query_id;
    await ok(alice.client, 'cqAddAutoApprovalCondition', {
      sentence: `Reject questions about ${MARK.condition} from any user`,
    });
    await ok(alice.client, 'cqAddAutoApprovalCondition', {
      sentence: 'Accept queries related to programming from any user',
    });
    const dm = await ok<{ conversationId: string }>(alice.client, 'dm_send', {
      to: 'carol',
      content: `Meet me at the ${MARK.dm} at noon.`,
    });
    ids.conversation = dm.data.conversationId;
    await ok(carol.client, 'connect_agents', {
      agent: 'alice',
      purpose: `Build the ${MARK.purpose} observatory together`,
    });
    await ok(alice.client, 'den_create', {
      slug: 'm/alice-den',
      name: 'Alice den',
      description: 'Where alice posts.',
      category: 'general',
    });
    const prompt = await ok<{ prompt: { id: string } }>(alice.client, 'prompt_publish', {
      den: 'm/alice-den',
      title: 'Share a ledger tip',
      body: 'What is your best bookkeeping habit?',
    });
    ids.prompt = prompt.data.prompt.id;
    const project = await ok<{ project: { id: string } }>(alice.client, 'showcase_submit', {
      title: 'Ledger lens',
      description: 'A viewer for ledgers.',
      category: 'tool',
    });
    ids.project = project.data.project.id;
    const article = await ok<{ article: { slug: string } }>(alice.client, 'article_publish', {
      title: 'Keeping a ledger',
      content:
        'A ledger is a book of accounts. Write every entry on the day it happens and close the month on time.',
      category: 'guides',
    });
    ids.article = article.data.article.slug;
  }, 120_000);

  afterAll(async () => {
    console.info(`authorization matrix: ${cells} cells\n${log.join('\n')}`);
    await l?.close();
  });

  const aliceSees = (needle: string) => (r: ReturnType<typeof outcomeOf>) => {
    expect(JSON.stringify(r.raw), `alice's own view contains ${needle}`).toContain(needle);
  };
  const stillPending = (k: string) => async () => {
    const r = await ok<Record<string, { status: string; draft: { text: string } | null }>>(
      alice.client,
      'cqListRequestedQueries',
      {},
    );
    // Waiting for its owner: pending, or held by the gate (the ledger holds a secret).
    expect(['pending', 'held']).toContain(r.data[ids[k]!]?.status);
    expect(r.data[ids[k]!]?.draft?.text).toContain(SOURCE_SECRET);
  };
  const aliceSourceIntact = async () => {
    const r = await ok<{ sources: Array<{ name: string }> }>(alice.client, 'listKnowledgeSources', {});
    expect(r.data.sources.map((s) => s.name)).toContain(SOURCE_NAME);
    const s = await ok<{ passages: Array<{ source: string }> }>(alice.client, 'searchKnowledge', {
      query: 'vault combination ledger',
    });
    expect(s.data.passages.map((p) => p.source)).toContain(SOURCE_NAME);
  };
  const aliceConditionsIntact = async () => {
    const r = await ok<{ conditions: string[] }>(alice.client, 'cqListAutoApprovalConditions', {});
    expect(r.data.conditions).toEqual(
      expect.arrayContaining([
        `Reject questions about ${MARK.condition} from any user`,
        'Accept queries related to programming from any user',
      ]),
    );
  };

  const rows = (): Row[] => [
    // users
    {
      tool: 'agent_register',
      anonymous: 'ok',
      owner: {
        args: () => ({ username: 'alice_second', email: 'alice2@example.com', displayName: 'Alice 2' }),
        expect: 'ok',
      },
      other: {
        args: () => ({ username: 'alice', email: 'bob.takeover@example.com', displayName: 'Not Alice' }),
        expect: 409,
      },
    },
    {
      tool: 'agent_search',
      owner: { args: () => ({ query: 'ledgers' }), expect: 'ok' },
      other: { args: () => ({ query: 'alice' }), expect: 'ok' },
    },
    {
      tool: 'agent_profile',
      owner: {
        args: () => ({ username: 'alice' }),
        expect: 'ok',
        check: (r) => {
          aliceSees(MARK.aliceEmail)(r);
          aliceSees(MARK.purpose)(r);
        },
      },
      other: { args: () => ({ username: 'alice' }), expect: 'ok' },
    },
    {
      tool: 'agent_update',
      owner: { args: () => ({ bio: 'Keeper of ledgers, still.' }), expect: 'ok' },
      other: {
        args: () => ({ username: 'alice', bio: 'hijacked by bob' }),
        expect: 403,
        check: async () => {
          const p = await ok<{ agent: { bio: string } }>(alice.client, 'agent_profile', {
            username: 'alice',
          });
          expect(p.data.agent.bio).not.toContain('hijacked');
        },
      },
    },
    {
      tool: 'cqGetActiveUsers',
      owner: { args: () => ({}), expect: 'ok' },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      tool: 'cqGetUserDescriptions',
      owner: { args: () => ({ user_id: 'alice' }), expect: 'ok' },
      other: { args: () => ({ user_id: 'alice' }), expect: 'ok' },
    },
    {
      tool: 'discover_agents',
      owner: { args: () => ({ topic: 'ledger' }), expect: 'ok' },
      other: { args: () => ({ topic: 'vault ledger' }), expect: 'ok' },
    },
    {
      tool: 'skill_search',
      owner: { args: () => ({ skill: 'ledger' }), expect: 'ok' },
      other: { args: () => ({ skill: 'ledger' }), expect: 'ok' },
    },
    {
      tool: 'connect_agents',
      owner: { args: () => ({ agent: 'carol', purpose: 'Answering your request' }), expect: 'ok' },
      other: { args: () => ({ agent: 'alice', purpose: 'Say hello' }), expect: 'ok' },
    },
    {
      tool: 'platform_stats',
      owner: { args: () => ({}), expect: 'ok' },
      other: { args: () => ({}), expect: 'ok' },
    },
    // knowledge
    {
      tool: 'updateKnowledgeSources',
      owner: {
        args: () => ({ file_name: 'scratch2.md', file_content: 'More notes on vault paint.' }),
        expect: 'ok',
      },
      // The same name in bob's own namespace: his source, never a replacement of alice's.
      other: {
        args: () => ({
          file_name: SOURCE_NAME.replace('5520918463', 'bob'),
          file_content: 'Bob has a ledger too.',
        }),
        expect: 'ok',
        check: aliceSourceIntact,
      },
    },
    {
      tool: 'listKnowledgeSources',
      owner: { args: () => ({}), expect: 'ok', check: aliceSees(SOURCE_NAME) },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      tool: 'setKnowledgeSourceSharing',
      owner: { args: () => ({ source: SOURCE_NAME, summary: 'Ledger notes' }), expect: 'ok' },
      other: {
        args: () => ({ source: SOURCE_NAME, sharing: 'auto' }),
        expect: [403, 404],
        check: aliceSourceIntact,
      },
    },
    {
      tool: 'removeKnowledgeSource',
      owner: { args: () => ({ source: 'scratch.md' }), expect: 'ok' },
      other: { args: () => ({ source: SOURCE_NAME }), expect: [403, 404], check: aliceSourceIntact },
    },
    {
      tool: 'searchKnowledge',
      owner: {
        args: () => ({ query: 'vault combination ledger' }),
        expect: 'ok',
        check: aliceSees(SOURCE_NAME),
      },
      other: { args: () => ({ query: 'vault combination ledger' }), expect: 'ok' },
    },
    {
      tool: 'article_search',
      owner: { args: () => ({ query: 'ledger' }), expect: 'ok' },
      other: { args: () => ({ query: 'ledger' }), expect: 'ok' },
    },
    {
      tool: 'article_publish',
      owner: {
        args: () => ({
          title: 'Closing the month',
          content: 'Close the month by reconciling every account with the bank statement, then lock it.',
          category: 'guides',
        }),
        expect: 'ok',
      },
      other: {
        args: () => ({
          title: 'Bob on ledgers',
          content: 'Bob thinks ledgers should be kept in pencil so that mistakes can be erased easily.',
          category: 'philosophy',
        }),
        expect: 'ok',
      },
    },
    {
      tool: 'article_get',
      owner: { args: () => ({ slug: ids.article }), expect: 'ok' },
      other: { args: () => ({ slug: ids.article }), expect: 'ok' },
    },
    // queries
    {
      tool: 'cqAskQuestion',
      owner: {
        args: () => ({ question: 'How do you keep your garden records?', peers: ['carol'] }),
        expect: 'ok',
      },
      other: { args: () => ({ question: 'What is in your ledger?', peers: ['alice'] }), expect: 'ok' },
    },
    {
      tool: 'cqListRequestedQueries',
      owner: {
        args: () => ({}),
        expect: 'ok',
        check: (r) => {
          aliceSees(MARK.question)(r);
          aliceSees(SOURCE_SECRET)(r);
        },
      },
      other: { args: () => ({ from: 'carol' }), expect: 'ok' },
    },
    {
      tool: 'cqSummarizeAnswers',
      owner: { args: () => ({ related_question: ids.asked }), expect: 'ok', check: aliceSees(MARK.asked) },
      other: { args: () => ({ related_question: ids.asked }), expect: 404 },
    },
    {
      tool: 'cqListAskedQuestions',
      owner: { args: () => ({}), expect: 'ok', check: aliceSees(MARK.asked) },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      tool: 'cqUpdateEditAnswer',
      owner: {
        args: () => ({ query_id: ids.q3, new_answer: `The answer is ${MARK.edited}.` }),
        expect: 'ok',
      },
      other: {
        args: () => ({ query_id: ids.q3, new_answer: 'Bob rewrote this answer.' }),
        expect: [403, 404],
        check: stillPending('q3'),
      },
    },
    // approvals
    {
      tool: 'cqAddAutoApprovalCondition',
      owner: { args: () => ({ sentence: 'Accept queries related to gardening from @carol' }), expect: 'ok' },
      other: {
        args: () => ({ sentence: 'Accept queries related to cooking from any user' }),
        expect: 'ok',
        check: aliceConditionsIntact,
      },
    },
    {
      tool: 'cqRemoveAutoApprovalCondition',
      owner: { args: () => ({ condition: 'Accept queries related to gardening from @carol' }), expect: 'ok' },
      other: {
        args: () => ({ condition: 'Accept queries related to programming from any user' }),
        expect: 404,
        check: aliceConditionsIntact,
      },
    },
    {
      tool: 'cqListAutoApprovalConditions',
      owner: { args: () => ({}), expect: 'ok', check: aliceSees(MARK.condition) },
      other: { args: () => ({}), expect: 'ok' },
    },
    // the owner's decisions (queries)
    {
      tool: 'cqAcceptQuery',
      owner: { args: () => ({ id: ids.q1 }), expect: 'ok' },
      other: { args: () => ({ id: ids.q1 }), expect: [403, 404], check: stillPending('q1') },
    },
    {
      tool: 'cqRejectQuery',
      owner: { args: () => ({ id: ids.q2 }), expect: 'ok' },
      other: {
        args: () => ({ id: ids.q2, reason: 'bob says no' }),
        expect: [403, 404],
        check: stillPending('q2'),
      },
    },
    // the inbox app's own buttons: the same checks as the tools they stand for
    {
      tool: 'cqInboxApprove',
      owner: { args: () => ({ id: ids.q4 }), expect: 'ok' },
      other: { args: () => ({ id: ids.q4 }), expect: [403, 404], check: stillPending('q4') },
    },
    {
      tool: 'cqInboxReject',
      owner: { args: () => ({ id: ids.q5 }), expect: 'ok' },
      other: {
        args: () => ({ id: ids.q5, reason: 'bob says no' }),
        expect: [403, 404],
        check: stillPending('q5'),
      },
    },
    {
      tool: 'cqInboxEditAnswer',
      owner: { args: () => ({ query_id: ids.q6, new_answer: 'Alice rewrote this answer.' }), expect: 'ok' },
      other: {
        args: () => ({ query_id: ids.q6, new_answer: 'Bob rewrote this answer.' }),
        expect: [403, 404],
        check: stillPending('q6'),
      },
    },
    {
      tool: 'knowledgeAppUpload',
      owner: {
        args: () => ({ file_name: 'scratch3.md', file_content: 'Notes on the vault door.' }),
        expect: 'ok',
      },
      other: {
        args: () => ({
          file_name: SOURCE_NAME.replace('5520918463', 'bob2'),
          file_content: 'Bob keeps notes.',
        }),
        expect: 'ok',
        check: aliceSourceIntact,
      },
    },
    // dens
    {
      tool: 'den_list',
      owner: { args: () => ({}), expect: 'ok' },
      other: { args: () => ({ query: 'alice' }), expect: 'ok' },
    },
    {
      tool: 'den_post',
      owner: { args: () => ({ den: 'm/alice-den', content: 'Welcome to my den.' }), expect: 'ok' },
      other: { args: () => ({ den: 'm/alice-den', content: 'Hello from bob.' }), expect: 'ok' },
    },
    {
      tool: 'den_messages',
      owner: { args: () => ({ den: 'm/alice-den' }), expect: 'ok' },
      other: { args: () => ({ den: 'm/alice-den' }), expect: 'ok' },
    },
    {
      tool: 'den_create',
      owner: {
        args: () => ({
          slug: 'm/alice-den-two',
          name: 'Alice den two',
          description: 'Another one.',
          category: 'general',
        }),
        expect: 'ok',
      },
      other: {
        args: () => ({
          slug: 'm/alice-den',
          name: 'Taken',
          description: 'Bob tries to take the slug.',
          category: 'general',
        }),
        expect: 409,
      },
    },
    {
      tool: 'prompt_list',
      owner: { args: () => ({ den: 'm/alice-den' }), expect: 'ok' },
      other: { args: () => ({ den: 'm/alice-den' }), expect: 'ok' },
    },
    {
      tool: 'prompt_publish',
      owner: {
        args: () => ({ den: 'm/alice-den', title: 'Second prompt', body: 'Another question for the den.' }),
        expect: 'ok',
      },
      other: {
        args: () => ({
          den: 'm/alice-den',
          title: 'Bob prompt',
          body: 'Bob should not be able to publish here.',
        }),
        expect: 403,
      },
    },
    {
      tool: 'prompt_respond',
      owner: {
        args: () => ({ prompt_id: ids.prompt, response: 'I reconcile every evening.' }),
        expect: 'ok',
      },
      other: { args: () => ({ prompt_id: ids.prompt, response: 'Bob writes in pencil.' }), expect: 'ok' },
    },
    {
      tool: 'prompt_responses',
      owner: { args: () => ({ prompt_id: ids.prompt }), expect: 'ok' },
      other: { args: () => ({ prompt_id: ids.prompt }), expect: 'ok' },
    },
    // dms
    {
      tool: 'dm_send',
      owner: { args: () => ({ to: 'carol', content: 'One more thing for you.' }), expect: 'ok' },
      other: { args: () => ({ to: 'alice', content: 'Hi alice, bob here.' }), expect: 'ok' },
    },
    {
      tool: 'dm_conversations',
      owner: { args: () => ({}), expect: 'ok', check: aliceSees('carol') },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      tool: 'dm_read',
      owner: { args: () => ({ conversation_id: ids.conversation }), expect: 'ok', check: aliceSees(MARK.dm) },
      other: { args: () => ({ conversation_id: ids.conversation }), expect: [403, 404] },
    },
    {
      tool: 'dm_block',
      owner: {
        args: () => ({ agent: 'bob' }),
        expect: 'ok',
        check: async () => {
          expect(
            (await call(bob.client, 'dm_send', { to: 'alice', content: 'Still there?' })).error?.code,
          ).toBe(403);
        },
      },
      other: { args: () => ({ agent: 'alice' }), expect: 'ok' },
    },
    // showcase
    {
      tool: 'showcase_list',
      owner: { args: () => ({}), expect: 'ok' },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      tool: 'showcase_submit',
      owner: {
        args: () => ({ title: 'Ledger lens 2', description: 'The sequel.', category: 'tool' }),
        expect: 'ok',
      },
      other: {
        args: () => ({ title: 'Bob tool', description: 'Bob made this.', category: 'tool' }),
        expect: 'ok',
      },
    },
    {
      tool: 'showcase_vote',
      owner: { args: () => ({ project_id: ids.project }), expect: 403 },
      other: { args: () => ({ project_id: ids.project }), expect: 'ok' },
    },
    // docs
    {
      tool: 'answer_query',
      owner: { args: () => ({ query: 'How do I register an agent?' }), expect: 'ok' },
      other: { args: () => ({ query: 'How do I register an agent?' }), expect: 'ok' },
    },
    {
      tool: 'search_documents',
      owner: { args: () => ({ query: 'agent_register' }), expect: 'ok' },
      other: { args: () => ({ query: 'agent_register' }), expect: 'ok' },
    },
    {
      tool: 'get_documents',
      owner: { args: () => ({ names: ['lore/README.md'] }), expect: 'ok' },
      other: { args: () => ({ names: ['lore/README.md'] }), expect: 'ok' },
    },
    {
      tool: 'docs_corpora',
      owner: { args: () => ({}), expect: 'ok' },
      other: { args: () => ({}), expect: 'ok' },
    },
    {
      // alice is the operator (LORE_DOCS_OPERATORS): only she may ingest.
      tool: 'docs_ingest',
      owner: { args: () => ({ inputs: [DOCS_FOLDER], source: 'ledgers' }), expect: 'ok' },
      other: { args: () => ({ inputs: [DOCS_FOLDER], source: 'ledgers' }), expect: 403 },
    },
    // Last: rotating keys changes who holds which key.
    {
      tool: 'agent_rotate_key',
      owner: {
        args: () => ({}),
        expect: 'ok',
        check: async (r) => {
          const fresh = (r.raw.structuredContent as { apiKey: string }).apiKey;
          keys.push(fresh);
          expect((await call(alice.client, 'agent_profile', { username: 'alice' })).error?.code).toBe(401);
          alice = { ...alice, key: fresh, client: await l.client(fresh) };
          expect(
            (await ok<{ email: string }>(alice.client, 'agent_profile', { username: 'alice' })).data.email,
          ).toContain(MARK.aliceEmail);
        },
      },
      other: {
        args: () => ({}),
        expect: 'ok',
        check: async (r) => {
          keys.push((r.raw.structuredContent as { apiKey: string }).apiKey);
          // Bob's rotation leaves alice's key working.
          await ok(alice.client, 'agent_profile', { username: 'alice' });
        },
      },
    },
  ];

  it('covers every tool of the catalog with owner, other agent, no key and bad keys', async () => {
    // The whole catalog, as an MCP Apps host lists it (a plain client is not shown the apps' own tools).
    const host = await connectClient(appFetch(l.lore.app), { capabilities: APPS_HOST });
    const catalog = (await host.listTools()).tools.map((t) => t.name).sort();
    await host.close();
    const table = rows();
    expect(table.map((r) => r.tool).sort(), 'one row per catalog tool').toEqual(catalog);

    const anon = l.anon;
    const unknown = await l.client(`lore_sk_${'Z'.repeat(32)}`);
    const revoked = await l.client(revokedKey);
    const garbled = await l.client('not-a-lore-key');
    const failures: string[] = [];
    const check = (
      label: string,
      tool: string,
      args: Record<string, unknown>,
      got: { o: ReturnType<typeof outcomeOf>; serialized: string },
      e: Expect,
      scan: string[],
    ) => {
      cells++;
      const status = got.o.ok ? 'ok' : String(got.o.code);
      log.push(`  ${tool.padEnd(30)} ${label.padEnd(9)} ${status}`);
      if (!matches(got.o.code, got.o.ok, e))
        failures.push(
          `${tool} as ${label}: expected ${JSON.stringify(e)}, got ${status}: ${got.o.text.slice(0, 200)}`,
        );
      const sent = JSON.stringify(args);
      for (const s of scan)
        if (!sent.includes(s) && got.serialized.includes(s))
          failures.push(
            `${tool} as ${label}: the result contains another agent's private data (${s.slice(0, 14)}…)`,
          );
    };

    for (const row of table) {
      const anonymousExpect = row.anonymous ?? 401;
      for (const [label, client] of [
        ['no key', anon],
        ['unknown', unknown],
        ['revoked', revoked],
        ['malformed', garbled],
      ] as const) {
        // agent_register gets a fresh handle each time, so that only the key is under test.
        const args =
          row.anonymous === 'ok'
            ? { username: `anon_${cells}`, email: `anon${cells}@example.com`, displayName: 'Anon' }
            : row.other.args();
        const got = await attempt(client, row.tool, args);
        // A public tool ignores a key it cannot use; every other tool needs a valid one.
        check(
          label,
          row.tool,
          args,
          got,
          label === 'no key' ? anonymousExpect : row.anonymous === 'ok' ? 'ok' : 401,
          secretsOf(),
        );
      }
      const otherArgs = row.other.args();
      const other = await attempt(bob.client, row.tool, otherArgs);
      check('other', row.tool, otherArgs, other, row.other.expect, secretsOf());
      await row.other.check?.(other.o);
      const ownerArgs = row.owner.args();
      const owner = await attempt(alice.client, row.tool, ownerArgs);
      // The owner sees her own data and carol's dealings with her, never anyone's key or carol's email.
      check('owner', row.tool, ownerArgs, owner, row.owner.expect, [
        ...keys.filter((k) => k !== alice.key),
        MARK.carolEmail,
      ]);
      await row.owner.check?.(owner.o);
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect(cells).toBe(table.length * 6);
  }, 180_000);
});
