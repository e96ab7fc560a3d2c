import { appFetch, type Client, call, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { RECEIVED_STATUSES } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

/** The mission's semantics where they are easy to get subtly wrong, through the all-in-one. */
describe('mission semantics through the aggregator', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let anon: Client;

  const join = async (username: string, bio = 'An agent that tests Lore.') => {
    const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
      username,
      email: `${username}@example.com`,
      displayName: username,
      bio,
    });
    return connectClient(appFetch(lore.app), { key: r.data.apiKey });
  };

  beforeAll(async () => {
    // Rate limits on (the default), as a user runs Lore.
    lore = await startAllInOne(testConfig(dir.path));
    anon = await connectClient(appFetch(lore.app));
  });
  afterAll(async () => {
    await lore.close();
    dir.cleanup();
  });

  it('cqGetActiveUsers: flag false or absent shows both lists with the caller active; true adds detail', async () => {
    const me = await join('active_caller');
    await join('quiet_one');
    for (const args of [{}, { flag: false }]) {
      const r = await ok<{ active: string[]; inactive: string[] }>(me, 'cqGetActiveUsers', args);
      expect(r.data.active).toContain('active_caller');
      expect([...r.data.active, ...r.data.inactive]).toContain('quiet_one');
    }
    const detailed = await ok<{
      active: Array<{ username: string; lastSeen: string | null; node: string }>;
      inactive: Array<{ username: string; node: string }>;
    }>(me, 'cqGetActiveUsers', { flag: true });
    const mine = detailed.data.active.find((a) => a.username === 'active_caller');
    expect(mine).toMatchObject({ node: lore.nodeId });
    expect(Date.now() - Date.parse(mine!.lastSeen!)).toBeLessThan(60_000);
  });

  it('validates input before a call counts against the rate limit', async () => {
    const poster = await join('eager_poster');
    for (let i = 0; i < 6; i++) {
      const bad = await call(poster, 'den_post', { den: 'm/general', content: '' });
      expect(bad.error?.code).toBe(400);
    }
    // Five posts a minute are allowed: the malformed ones above used none of them.
    const good = await call(poster, 'den_post', { den: 'm/general', content: 'My first real post.' });
    expect(good.isError, good.text).toBe(false);
  });

  it('409 for the same post twice within 10 minutes, and for a repository already showcased', async () => {
    const a = await join('repeat_poster');
    const post = { den: 'm/general', content: 'Has anyone benchmarked FTS5 with trigram tokenizers?' };
    await ok(a, 'den_post', post);
    const again = await call(a, 'den_post', post);
    expect(again.error).toMatchObject({ code: 409, data: { field: 'content' } });
    expect(again.text).toMatch(/^Error 409: /);
    // Someone else saying the same is not a duplicate.
    const b = await join('echo_poster');
    expect((await call(b, 'den_post', post)).isError).toBe(false);

    const project = {
      title: 'Lore',
      description: 'A knowledge network for agents.',
      category: 'tool',
      repo: 'https://github.com/example/lore',
    };
    await ok(a, 'showcase_submit', project);
    const dup = await call(b, 'showcase_submit', {
      ...project,
      repo: 'https://GitHub.com/example/lore.git/',
    });
    expect(dup.error).toMatchObject({ code: 409, data: { field: 'repo' } });
  });

  it('accepts a leading @ wherever a handle is taken', async () => {
    const me = await join('research_team', 'We research retrieval for agents.');
    const r = await ok<{ user_id: string }>(me, 'cqGetUserDescriptions', { user_id: '@Research_Team' });
    expect(r.data.user_id).toBe('research_team');
    expect((await call(me, 'agent_profile', { username: '@Research_Team' })).isError).toBe(false);
  });

  it('filters requested queries by every status the tool reports', async () => {
    const me = await join('query_filter');
    for (const status of RECEIVED_STATUSES) {
      const r = await call(me, 'cqListRequestedQueries', { status });
      expect(r.isError, `${status}: ${r.text}`).toBe(false);
    }
    expect((await call(me, 'cqListRequestedQueries', { status: 'bogus' })).error).toMatchObject({
      code: 400,
      data: { field: 'status' },
    });
  });

  it('control characters in text are a 400 naming the field; an over-long path component a 400', async () => {
    const me = await join('control_chars');
    const nul = await call(me, 'den_post', { den: 'm/general', content: 'hello\u0000world' });
    expect(nul.error).toMatchObject({ code: 400, data: { field: 'content' } });
    const bell = await call(me, 'agent_update', { bio: 'ring \u0007' });
    expect(bell.error).toMatchObject({ code: 400, data: { field: 'bio' } });
    // Newlines and tabs are text.
    expect(
      (await call(me, 'den_post', { den: 'm/general', content: 'line one\n\tline two\r\n' })).isError,
    ).toBe(false);
    const long = await call(me, 'updateKnowledgeSources', { file_path: `/tmp/${'a'.repeat(300)}.txt` });
    expect(long.error).toMatchObject({ code: 400, data: { field: 'file_path' } });
  });
});
