import { createApprovalsService } from '@lore/approvals';
import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { createUsersService } from '@lore/users';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INBOX_PAGE_SIZE } from '../src/console/pages/inbox.js';
import { type AllInOne, startAllInOne } from '../src/index.js';

/** An owner many questions wait for still reads and acts on its inbox a page at a time. */
describe('the console inbox, paged', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let cookie: string;
  const WAITING = INBOX_PAGE_SIZE + 5;
  const get = async (path: string) =>
    (
      await fetch(`http://127.0.0.1:${http.port}${path}`, { headers: { cookie, accept: 'text/html' } })
    ).text();

  beforeAll(async () => {
    const config = testConfig(dir.path, { LORE_RATE_LIMITS: 'false', LORE_PORT: '0' });
    lore = await startAllInOne(config, {
      services: [
        { name: 'users', create: createUsersService },
        { name: 'knowledge', create: (deps) => createKnowledgeService(deps) },
        { name: 'queries', create: createQueriesService },
        { name: 'approvals', create: createApprovalsService },
      ],
    });
    http = await serveHttp(lore.app, config, 0);
    const anon = await connectClient(appFetch(lore.app));
    const join = async (username: string) =>
      (
        await ok<{ apiKey: string }>(anon, 'agent_register', {
          username,
          email: `${username}@example.com`,
          displayName: username,
        })
      ).data.apiKey;
    const ownerKey = await join('owner');
    const owner = await connectClient(appFetch(lore.app), { key: ownerKey });
    const asker = await connectClient(appFetch(lore.app), { key: await join('asker') });
    await ok(owner, 'updateKnowledgeSources', {
      file_name: 'python.md',
      file_content:
        '# Python\n\nTo reverse a list in Python, call list.reverse() or slice it with list[::-1].',
    });
    for (let i = 1; i <= WAITING; i++)
      await ok(asker, 'cqAskQuestion', {
        question: `How do I reverse a list in Python (${i})?`,
        peers: ['owner'],
      });
    // No condition decides them: each waits for the owner.
    await vi.waitFor(
      async () => {
        const r = (await ok<Record<string, { status: string }>>(owner, 'cqListRequestedQueries')).data;
        expect(Object.values(r).filter((q) => q.status === 'pending').length).toBe(WAITING);
      },
      { timeout: 60_000, interval: 200 },
    );
    const base = `http://127.0.0.1:${http.port}`;
    const form = await fetch(`${base}/console/sign-in`);
    const pre = form.headers
      .getSetCookie()
      .find((c) => c.startsWith('lore_console_pre='))!
      .split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${base}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: base, cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, key: ownerKey }).toString(),
    });
    cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('lore_console='))!
      .split(';')[0]!;
  }, 120_000);
  afterAll(async () => {
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  const cards = (html: string) => (html.match(/reverse a list in Python \(\d+\)/g) ?? []).length;

  it(`shows ${INBOX_PAGE_SIZE} waiting questions a page, newest first, and links to the older ones`, async () => {
    const first = await get('/console/inbox');
    expect(cards(first)).toBe(INBOX_PAGE_SIZE);
    expect(first).toContain(`1–${INBOX_PAGE_SIZE} of ${WAITING} waiting`);
    expect(first).toContain(`(${WAITING})?`);
    expect(first).toContain('href="/console/inbox?page=2"');
    const second = await get('/console/inbox?page=2');
    expect(cards(second)).toBe(WAITING - INBOX_PAGE_SIZE);
    expect(second).toContain('(1)?');
    expect(second).toContain('href="/console/inbox?page=1"');
    // The live refresh of a page keeps that page.
    expect(second).toContain('data-refresh="/console/inbox/list?page=2"');
    expect(cards(await get('/console/inbox/list?page=2'))).toBe(WAITING - INBOX_PAGE_SIZE);
  });

  it('reads a page out of range as the nearest one', async () => {
    expect(cards(await get('/console/inbox?page=99'))).toBe(WAITING - INBOX_PAGE_SIZE);
    expect(cards(await get('/console/inbox?page=-3'))).toBe(INBOX_PAGE_SIZE);
  });
});
