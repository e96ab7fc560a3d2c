import { createApprovalsService } from '@lore/approvals';
import { type HttpServerHandle, MCP_APP_MIME, MCP_APPS_EXTENSION, serveHttp } from '@lore/kit';
import { APPS_HOST, appFetch, type Client, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
import { createUsersService } from '@lore/users';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';
import { browserAvailable, launchChromium } from './browser.js';
import { QUANTUM_TXT, QUESTION } from './fixtures/knowledge.js';

const SERVICES = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
  { name: 'queries', create: createQueriesService },
  { name: 'approvals', create: createApprovalsService },
];

/**
 * A minimal MCP Apps host: the app in a sandboxed iframe, its JSON-RPC over postMessage answered
 * here — the handshake, the tool result that opened it, and tools/call proxied to the server
 * (through `hostCallTool`, which the test binds to a real MCP client).
 */
const HOST = `<!doctype html><html><body><iframe id="app" sandbox="allow-scripts allow-forms" style="width:100%;height:700px"></iframe>
<script>
const frame = document.getElementById('app');
window.startApp = (html, initial) => {
  window.addEventListener('message', async (e) => {
    if (e.source !== frame.contentWindow) return;
    const m = e.data;
    if (!m || m.jsonrpc !== '2.0') return;
    const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*');
    if (m.method === 'ui/initialize')
      reply({ protocolVersion: m.params.protocolVersion, hostInfo: { name: 'test-host', version: '1.0.0' },
        hostCapabilities: { serverTools: {} }, hostContext: { theme: 'light' } });
    else if (m.method === 'ui/notifications/initialized')
      frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: initial }, '*');
    else if (m.method === 'tools/call') reply(await window.hostCallTool(m.params.name, m.params.arguments || {}));
    else if (m.id !== undefined) reply({});
  });
  frame.srcdoc = html;
};
</script></body></html>`;

describe.skipIf(!browserAvailable())('MCP Apps through the aggregator', () => {
  const dir = tempDir();
  let lore: AllInOne;
  let http: HttpServerHandle;
  let browser: Browser;
  let owner: Client;
  let asker: Client;

  beforeAll(async () => {
    const config = testConfig(dir.path, { LORE_RATE_LIMITS: 'false' });
    lore = await startAllInOne(config, { services: SERVICES });
    http = await serveHttp(lore.app, config, 0);
    const anon = await connectClient(appFetch(lore.app));
    const join = async (username: string) => {
      const r = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username,
        email: `${username}@example.com`,
        displayName: username,
      });
      // The owner's client talks HTTP to the real endpoint, as a host would, and declares MCP Apps.
      return connectClient(undefined, {
        url: `${http.url}/mcp`,
        key: r.data.apiKey,
        capabilities: APPS_HOST,
      });
    };
    owner = await join('olivia');
    asker = await join('alice');
    await ok(owner, 'updateKnowledgeSources', { file_name: 'quantum.txt', file_content: QUANTUM_TXT });
    browser = await launchChromium();
  }, 60_000);

  /** The app's HTML read through the aggregator, loaded in Chromium under the minimal host, with its first tool result. */
  async function openApp(uri: string, tool: string) {
    const html = ((await owner.readResource({ uri })).contents[0] as { text: string }).text;
    const initial = await owner.callTool({ name: tool, arguments: {} });
    const page = await browser.newPage();
    const calls: string[] = [];
    await page.exposeFunction('hostCallTool', async (name: string, args: Record<string, unknown>) => {
      calls.push(name);
      return owner.callTool({ name, arguments: args });
    });
    await page.setContent(HOST);
    await page.evaluate(
      ([h, r]) => (window as unknown as { startApp: (a: unknown, b: unknown) => void }).startApp(h, r),
      [html, initial] as const,
    );
    return { page, calls, app: page.frameLocator('#app') };
  }

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await lore?.close();
    dir.cleanup();
  });

  it('advertises the extension, attaches the apps to their tools and serves the HTML with the MIME profile', async () => {
    const ext = (owner.getServerCapabilities() as { extensions?: Record<string, unknown> })?.extensions;
    expect(ext?.[MCP_APPS_EXTENSION]).toEqual({ mimeTypes: [MCP_APP_MIME] });
    const tools = new Map((await owner.listTools()).tools.map((t) => [t.name, t]));
    expect(tools.get('cqListRequestedQueries')?._meta?.ui).toEqual({
      resourceUri: 'ui://lore/inbox',
      visibility: ['model', 'app'],
    });
    expect(tools.get('listKnowledgeSources')?._meta?.ui).toMatchObject({
      resourceUri: 'ui://lore/knowledge',
    });
    for (const name of ['cqInboxApprove', 'cqInboxReject', 'cqInboxEditAnswer'])
      expect(tools.get(name)?._meta?.ui).toEqual({ resourceUri: 'ui://lore/inbox', visibility: ['app'] });
    expect(tools.get('knowledgeAppUpload')?._meta?.ui).toEqual({
      resourceUri: 'ui://lore/knowledge',
      visibility: ['app'],
    });
    const listed = (await owner.listResources()).resources.map((r) => [r.uri, r.mimeType]);
    expect(listed).toEqual(
      expect.arrayContaining([
        ['ui://lore/inbox', MCP_APP_MIME],
        ['ui://lore/knowledge', MCP_APP_MIME],
      ]),
    );
    for (const uri of ['ui://lore/inbox', 'ui://lore/knowledge']) {
      const read = await owner.readResource({ uri });
      const c = read.contents[0] as { uri: string; mimeType: string; text: string };
      expect(c.uri).toBe(uri);
      expect(c.mimeType).toBe(MCP_APP_MIME);
      // Offline inside the host's sandbox: nothing is fetched from anywhere.
      expect(c.text).not.toMatch(
        /<script[^>]+src=|<link[^>]+href=|https?:\/\/[a-z0-9.-]+\/[^"'\s]*\.(js|css)/i,
      );
    }
    // Hosts that render nothing still get the whole answer as text.
    const plain = await owner.callTool({ name: 'listKnowledgeSources', arguments: {} });
    expect((plain.content as Array<{ text: string }>)[0]!.text).toContain('quantum.txt');
  });

  it('approves a question from the inbox app running in Chromium under a host bridge', async () => {
    const id = (
      await ok<{ query_id: string }>(asker, 'cqAskQuestion', { question: QUESTION, peers: ['olivia'] })
    ).data.query_id;
    await expect
      .poll(
        async () =>
          (await ok<Record<string, { status: string }>>(owner, 'cqListRequestedQueries')).data[id]?.status,
        {
          timeout: 15_000,
        },
      )
      .toBe('pending');
    const { page, calls, app } = await openApp('ui://lore/inbox', 'cqListRequestedQueries');
    const card = app.locator(`#q-${id}`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.q').textContent()).toContain('untrusted');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await app.locator(`#q-${id} .st.accepted`).waitFor({ timeout: 15_000 });
    expect(calls).toContain('cqInboxApprove');
    const after = await ok<Record<string, { status: string; decision: { decided_by: string } }>>(
      owner,
      'cqListRequestedQueries',
    );
    expect(after.data[id]!.status).toBe('accepted');
    expect(after.data[id]!.decision.decided_by).toBe('manual:@olivia');
    await page.close();
  });

  it('shows a question nothing matched with its closest passages, and sends the answer the owner writes', async () => {
    // Shares one word ("processor") with the owner's note and nothing of its subject.
    const question = 'Which food processor should I buy to knead rye bread dough?';
    const id = (await ok<{ query_id: string }>(asker, 'cqAskQuestion', { question, peers: ['olivia'] })).data
      .query_id;
    await expect
      .poll(
        async () =>
          (await ok<Record<string, { status: string }>>(owner, 'cqListRequestedQueries')).data[id]?.status,
        { timeout: 15_000 },
      )
      .toBe('no-knowledge');
    const { page, calls, app } = await openApp('ui://lore/inbox', 'cqListRequestedQueries');
    const card = app.locator(`#q-${id}`);
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator('.closest').textContent()).toMatch(
      /Nothing in your knowledge matched\..*quantum\.txt/s,
    );
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Decline' }).count()).toBe(1);
    await card.getByText('Write an answer').click();
    await card
      .getByLabel('Your answer')
      .fill('A stand mixer with a dough hook; a food processor overheats on rye.');
    await card.getByRole('button', { name: 'Send answer' }).click();
    await app.locator(`#q-${id} .st.accepted`).waitFor({ timeout: 15_000 });
    expect(calls).toEqual(expect.arrayContaining(['cqInboxEditAnswer', 'cqInboxApprove']));
    await page.close();
  });

  it('shows why an inbox action failed, and an upload the knowledge app was refused', async () => {
    const id = (
      await ok<{ query_id: string }>(asker, 'cqAskQuestion', { question: QUESTION, peers: ['olivia'] })
    ).data.query_id;
    await expect
      .poll(
        async () =>
          (await ok<Record<string, { status: string }>>(owner, 'cqListRequestedQueries')).data[id]?.status,
        { timeout: 15_000 },
      )
      .toBe('pending');
    const inbox = await openApp('ui://lore/inbox', 'cqListRequestedQueries');
    const card = inbox.app.locator(`#q-${id}`);
    await card.waitFor({ timeout: 15_000 });
    // Decided elsewhere while the app still shows it waiting: the app's action must say it failed.
    await ok(owner, 'cqRejectQuery', { id, reason: 'Decided in another window.' });
    await card.getByLabel('Answer to send').fill('An edited answer that will not go.');
    await card.getByRole('button', { name: 'Save edit and approve' }).click();
    const status = inbox.app.locator('#status.error');
    await status.waitFor({ timeout: 15_000 });
    expect(await status.textContent()).toMatch(/^Error 409: /);
    await inbox.page.close();

    const knowledge = await openApp('ui://lore/knowledge', 'listKnowledgeSources');
    await knowledge.app.locator('#rows', { hasText: 'quantum.txt' }).waitFor({ timeout: 15_000 });
    await knowledge.app.getByLabel(/Add a file/).setInputFiles({
      name: 'bad.exe',
      mimeType: 'application/octet-stream',
      // The DOS stub's text only: with its NUL bytes the kit refuses the call before the tool
      // reads it (400, control characters), which the app shows the same way.
      buffer: Buffer.from('MZ This program cannot be run in DOS mode.'),
    });
    await knowledge.app.getByRole('button', { name: 'Upload' }).click();
    const refused = knowledge.app.locator('#status.error');
    await refused.waitFor({ timeout: 15_000 });
    expect(await refused.textContent()).toContain("Error 415: 'bad.exe' is not a text file");
    await knowledge.page.close();
  });

  it('uploads a file from the knowledge app running in Chromium through its app-only tool', async () => {
    const { page, calls, app } = await openApp('ui://lore/knowledge', 'listKnowledgeSources');
    await app.locator('#rows', { hasText: 'quantum.txt' }).waitFor({ timeout: 15_000 });
    await app.getByLabel(/Add a file/).setInputFiles({
      name: 'tides.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Tides\n\nSpring tides come twice a month, at new and full moon.'),
    });
    await app.getByRole('button', { name: 'Upload' }).click();
    await app.locator('#rows', { hasText: 'tides.md' }).waitFor({ timeout: 15_000 });
    expect(calls).toContain('knowledgeAppUpload');
    const listed = await ok<{ sources: Array<{ name: string }> }>(owner, 'listKnowledgeSources');
    expect(listed.data.sources.map((x) => x.name)).toContain('tides.md');
    await page.close();
  });
});
