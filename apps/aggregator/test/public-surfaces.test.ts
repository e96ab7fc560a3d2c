import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

/**
 * What anyone on the network can read about an agent says nothing drawn from its manual sources
 * or from its passages classified sensitive. Tried from the attacker's side: every public
 * surface is asked with the very words it must not know. Surfaces checked: cqGetUserDescriptions,
 * agent_profile, agent_search (query), discover_agents (topic), skill_search, cqGetActiveUsers,
 * platform_stats, and every KnowledgeSourceAdded event on the bus (what the users service hears).
 */

const CODENAME = /bluefin/i;
// The health passage's distinctive words (a made-up drug, a name, the condition).
const SENSITIVE = /zorvexil|marguerite|diabetes|insulin/i;

const BLUEFIN = `# Project BLUEFIN

BLUEFIN is the codename of the acquisition of Harbourline. The BLUEFIN term sheet values Harbourline at forty million.

## BLUEFIN timeline
BLUEFIN closes in March; the BLUEFIN team meets on Fridays to review BLUEFIN diligence.
`;

const TEAM = `# Team handbook

## Releases
The release train leaves every Tuesday. Release notes list every change and the release manager tags the release.

## Marguerite
Marguerite takes Zorvexil for her diabetes and injects insulin twice a day. Zorvexil makes Marguerite tired, so her Zorvexil doses are taken at night.
`;

describe('public surfaces from an attacker’s side', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let owner: Client;
  let mallory: Client;
  const announced: string[] = [];

  beforeAll(async () => {
    lore = await startAllInOne(testConfig(dir.path, { LORE_RATE_LIMITS: 'false' }), {
      services: [
        { name: 'users', create: createUsersService },
        { name: 'knowledge', create: (deps) => createKnowledgeService(deps) },
      ],
    });
    await lore.bus.listen('lore.knowledge.source.added', (e) => announced.push(JSON.stringify(e.payload)));
    const anon = await connectClient(appFetch(lore.app));
    const join = async (username: string, extra: Record<string, unknown> = {}) => {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username,
        ...extra,
      });
      return connectClient(appFetch(lore.app), { key: r.data.apiKey });
    };
    owner = await join('owner', { bio: 'Keeps the team handbook.' });
    mallory = await join('mallory');
    await ok(owner, 'updateKnowledgeSources', {
      file_name: 'bluefin-acquisition.md',
      file_content: BLUEFIN,
      sharing: 'manual',
    });
    await ok(owner, 'updateKnowledgeSources', {
      file_name: 'team-handbook.md',
      file_content: TEAM,
      summary: 'How our team ships',
    });
    // The owner sees every word of its own sources: the words are there to leak.
    const own = JSON.stringify(await ok(owner, 'listKnowledgeSources', {}));
    expect(own).toMatch(CODENAME);
    expect(own).toMatch(/zorvexil/);
    // Both sources announced once classified, and the public one known to the users service.
    await vi.waitFor(() => expect(announced.filter((a) => a.includes('team-handbook.md'))).toHaveLength(2));
    await vi.waitFor(() => expect(announced.filter((a) => a.includes('bluefin'))).toHaveLength(2));
    await vi.waitFor(async () =>
      expect(JSON.stringify(await ok(mallory, 'cqGetUserDescriptions', { user_id: 'owner' }))).toContain(
        'team-handbook.md',
      ),
    );
  });
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  /**
   * What each surface answers the attacker asking with `words`, the words echoed back (a search
   * repeats its query) taken out. A search must not find the owner by them either.
   */
  const surfaces = async (words: string): Promise<Record<string, string>> => {
    const skill = words.split(' ')[0]!;
    const found = {
      agent_search: await call(mallory, 'agent_search', { query: words }),
      discover_agents: await call(mallory, 'discover_agents', { topic: words }),
      skill_search: await call(mallory, 'skill_search', { skill }),
    };
    for (const [surface, r] of Object.entries(found))
      expect(JSON.stringify(r.data), surface).not.toContain('"owner"');
    const answers = {
      cqGetUserDescriptions: await call(mallory, 'cqGetUserDescriptions', { user_id: 'owner' }),
      agent_profile: await call(mallory, 'agent_profile', { username: 'owner' }),
      ...found,
      cqGetActiveUsers: await call(mallory, 'cqGetActiveUsers', {}),
      platform_stats: await call(mallory, 'platform_stats', {}),
    };
    return Object.fromEntries(
      Object.entries(answers).map(([surface, r]) => {
        expect(r.error, surface).toBeUndefined();
        return [surface, JSON.stringify(r).split(words).join('').split(skill).join('')];
      }),
    );
  };

  it('says nothing of a manual source, asked with its codename', async () => {
    for (const [surface, text] of Object.entries(await surfaces('BLUEFIN Harbourline acquisition'))) {
      expect(text, surface).not.toMatch(CODENAME);
      expect(text, surface).not.toMatch(/harbourline/i);
    }
    // Not even in what the users service hears: every announcement of it is nameless of its words.
    for (const a of announced.filter((x) => x.includes('bluefin-acquisition.md')))
      expect(JSON.parse(a)).toMatchObject({ sharing: 'manual', keywords: [] });
  });

  it('says nothing of a passage classified sensitive, asked with its words', async () => {
    for (const [surface, text] of Object.entries(await surfaces('Zorvexil diabetes insulin')))
      expect(text, surface).not.toMatch(SENSITIVE);
    for (const a of announced) expect(JSON.parse(a).keywords.join(' ')).not.toMatch(SENSITIVE);
    // The shared source's other passages still describe it.
    const last = JSON.parse(announced.filter((a) => a.includes('team-handbook.md')).at(-1)!);
    expect(last.keywords).toContain('release');
    expect((await surfaces('release'))['cqGetUserDescriptions']).toContain('How our team ships');
  });

  it('keeps saying nothing after the manual source is shared auto and back', async () => {
    await ok(owner, 'setKnowledgeSourceSharing', { source: 'team-handbook.md', sharing: 'manual' });
    await vi.waitFor(async () =>
      expect(JSON.stringify(await ok(mallory, 'cqGetUserDescriptions', { user_id: 'owner' }))).not.toContain(
        'team-handbook.md',
      ),
    );
    await ok(owner, 'setKnowledgeSourceSharing', { source: 'team-handbook.md', sharing: 'auto' });
    await vi.waitFor(async () =>
      expect(JSON.stringify(await ok(mallory, 'cqGetUserDescriptions', { user_id: 'owner' }))).toContain(
        'team-handbook.md',
      ),
    );
    for (const [surface, text] of Object.entries(await surfaces('Zorvexil BLUEFIN'))) {
      expect(text, surface).not.toMatch(SENSITIVE);
      expect(text, surface).not.toMatch(CODENAME);
    }
    for (const a of announced) expect(JSON.parse(a).keywords.join(' ')).not.toMatch(SENSITIVE);
  });
});
