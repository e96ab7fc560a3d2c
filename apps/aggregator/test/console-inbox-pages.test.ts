import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { appFetch, type Client, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INBOX_PAGE_SIZE } from '../src/console/pages/inbox.js';
import { type AllInOne, startAllInOne } from '../src/index.js';
import { servicesNamed } from '../src/services.js';

const SERVICES = servicesNamed('users', 'knowledge', 'queries', 'approvals');

/** Signs in to the console with an agent's key, as a browser would; the session cookie. */
async function signIn(port: number, key: string): Promise<string> {
  const base = `http://127.0.0.1:${port}`;
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
    body: new URLSearchParams({ _csrf: csrf, key }).toString(),
  });
  return signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('lore_console='))!
    .split(';')[0]!;
}

const PYTHON_NOTE =
  '# Python\n\nTo reverse a list in Python, call list.reverse() or slice it with list[::-1].';

/**
 * Lore with the question flow over HTTP, an `owner` whose knowledge is the Python note and an
 * `asker`, both connected over MCP; the owner's key signs in to the console.
 */
async function ownerAndAsker(dataDir: string) {
  const config = testConfig(dataDir, { LORE_RATE_LIMITS: 'false', LORE_PORT: '0' });
  const lore = await startAllInOne(config, { services: SERVICES });
  const http = await serveHttp(lore.app, config, 0);
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
  await ok(owner, 'updateKnowledgeSources', { file_name: 'python.md', file_content: PYTHON_NOTE });
  return { lore, http, owner, asker, ownerKey };
}

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
    const started = await ownerAndAsker(dir.path);
    ({ lore, http } = started);
    const { owner, asker, ownerKey } = started;
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
    cookie = await signIn(http.port, ownerKey);
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

/**
 * A question asked by name that nothing in the owner's knowledge matched waits in the console
 * inbox with the passages that came closest: the owner writes an answer or declines it, and has
 * no empty draft to approve.
 */
describe('the console inbox, a question nothing matched', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let cookie: string;
  let owner: Client;
  let asker: Client;
  const base = () => `http://127.0.0.1:${http.port}`;
  const get = async (path: string) =>
    (await fetch(`${base()}${path}`, { headers: { cookie, accept: 'text/html' } })).text();
  const post = async (path: string, csrf: string, fields: Record<string, string>) =>
    fetch(`${base()}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: base(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
  const status = async (id: string) =>
    (await ok<Record<string, { status: string }>>(owner, 'cqListRequestedQueries')).data[id]?.status;
  /** One question from the asker that shares a word with the note but is not about it. */
  const askUnmatched = async (question: string) => {
    const id = (await ok<{ query_id: string }>(asker, 'cqAskQuestion', { question, peers: ['owner'] })).data
      .query_id;
    await expect.poll(() => status(id), { timeout: 30_000, interval: 100 }).toBe('no-knowledge');
    return id;
  };
  /** The card of one query in the inbox page. */
  const cardOf = (html: string, id: string) => {
    const at = html.indexOf(`id="q-${id}"`);
    expect(at).toBeGreaterThan(-1);
    const end = html.indexOf('</article>', at);
    return html.slice(at, end);
  };

  beforeAll(async () => {
    let ownerKey: string;
    ({ lore, http, owner, asker, ownerKey } = await ownerAndAsker(dir.path));
    cookie = await signIn(http.port, ownerKey);
  }, 120_000);
  afterAll(async () => {
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  it('shows the closest passages with Write an answer and Decline, and no Approve', async () => {
    const id = await askUnmatched('What should I feed my pet python snake, and how often?');
    const page = await get('/console/inbox');
    const card = cardOf(page, id);
    expect(card).toContain('feed my pet python snake');
    expect(card).toContain('Nothing in your knowledge matched.');
    expect(card).toContain('Closest passages (below the relevance threshold)');
    expect(card).toContain('<strong>python.md</strong>');
    expect(card).toContain('To reverse a list in Python');
    expect(card).toMatch(/score \d/);
    expect(card).toContain('<summary>Write an answer</summary>');
    expect(card).toContain('<summary>Decline</summary>');
    expect(card).not.toContain(`/console/inbox/${id}/approve`);
    expect(card).not.toContain('Approve');
  });

  it('sends the answer the owner writes, and the asker receives it', async () => {
    const id = await askUnmatched('Is a python snake a good pet for a small flat?');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await get('/console/inbox'))![1]!;
    const answer = 'Not really: a ball python needs a large, warm enclosure.';
    expect((await post(`/console/inbox/${id}/edit`, csrf, { answer })).status).toBe(303);
    expect(await status(id)).toBe('accepted');
    await expect
      .poll(
        async () =>
          (
            await ok<{ questions: Array<{ id: string; answers: Array<{ text: string }> }> }>(
              asker,
              'cqListAskedQuestions',
            )
          ).data.questions.find((q) => q.id === id)?.answers[0]?.text,
        { timeout: 15_000, interval: 100 },
      )
      .toBe(answer);
  });

  it('declines it, and it leaves the inbox', async () => {
    const id = await askUnmatched('Which python snake species stay smallest?');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await get('/console/inbox'))![1]!;
    expect((await post(`/console/inbox/${id}/reject`, csrf, { reason: 'Not my field.' })).status).toBe(303);
    expect(await status(id)).toBe('rejected');
    expect(await get('/console/inbox')).not.toContain(`id="q-${id}"`);
  });
});
