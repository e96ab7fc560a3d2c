import { type HttpServerHandle, serveHttp } from '@lore/kit';
import { APPS_HOST, appFetch, type Client, connectClient, ok, tempDir, testConfig } from '@lore/kit/testing';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, startAllInOne } from '../src/index.js';

const APP_ONLY = ['cqInboxApprove', 'cqInboxReject', 'cqInboxEditAnswer', 'knowledgeAppUpload'];
const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();

/** Which tools a connection lists: app-only tools only to MCP Apps hosts, and the toolsets it or the node chose. */
describe('toolsets and app-only tools over the real endpoint', () => {
  const dir = tempDir();
  const narrowDir = tempDir();
  let lore: AllInOne;
  let narrow: AllInOne;
  let http: HttpServerHandle;
  let key: string;
  const clients: Array<{ close(): Promise<void> }> = [];
  const open = async (opts: Parameters<typeof connectClient>[1] = {}, app = lore.app) => {
    const c = await connectClient(appFetch(app), opts);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    const config = testConfig(dir.path, { LORE_RATE_LIMITS: 'false', LORE_PORT: '0' });
    lore = await startAllInOne(config);
    http = await serveHttp(lore.app, config, 0);
    narrow = await startAllInOne(
      testConfig(narrowDir.path, { LORE_RATE_LIMITS: 'false', LORE_TOOLSETS: 'knowledge, questions' }),
    );
    const r = await ok<{ apiKey: string }>(await open(), 'agent_register', {
      username: 'toolset_tester',
      email: 'toolset_tester@example.com',
      displayName: 'Toolset tester',
    });
    key = r.data.apiKey;
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await http?.close();
    await lore?.close();
    await narrow?.close();
    dir.cleanup();
    narrowDir.cleanup();
  });

  it('hides the MCP Apps’ own tools from a plain client, lists them to a host that declares MCP Apps', async () => {
    const plain = await names(await open());
    const host = await names(await open({ capabilities: APPS_HOST }));
    for (const t of APP_ONLY) {
      expect(plain).not.toContain(t);
      expect(host).toContain(t);
    }
    expect(host.filter((t) => !APP_ONLY.includes(t))).toEqual(plain);
    // A 2025-11-25 session declares its capabilities once, at initialize: the same rule.
    expect(await names(await open({ era: 'legacy', key }))).toEqual(plain);
    expect(await names(await open({ era: 'legacy', key, capabilities: APPS_HOST }))).toEqual(host);
    // Hidden from the list, the inbox app's action still answers its app through the host.
    const app = await open({ key, capabilities: APPS_HOST });
    const r = await app.callTool({ name: 'cqInboxApprove', arguments: { id: 'qry-abcdef123456' } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('404');
  });

  it('lists only the toolsets a client chooses, by URL query or by header, in either era', async () => {
    const all = await names(await open());
    const byQuery = await names(await open({ url: 'http://127.0.0.1/mcp?toolsets=knowledge' }));
    expect(byQuery).toContain('updateKnowledgeSources');
    expect(byQuery).toContain('article_search');
    expect(byQuery).not.toContain('den_post');
    expect(byQuery).not.toContain('cqAskQuestion');
    expect(byQuery.length).toBeLessThan(all.length / 3);
    const byHeader = await names(await open({ headers: { 'X-Lore-Toolsets': 'questions,docs' } }));
    expect(byHeader).toEqual(
      expect.arrayContaining([
        'cqAskQuestion',
        'cqAcceptQuery',
        'cqAddAutoApprovalCondition',
        'answer_query',
      ]),
    );
    expect(byHeader).not.toContain('updateKnowledgeSources');
    expect(byHeader).not.toContain('docs_ingest');
    const legacy = await names(await open({ era: 'legacy', url: 'http://127.0.0.1/mcp?toolsets=account' }));
    expect(legacy).toEqual(['agent_profile', 'agent_register', 'agent_rotate_key', 'agent_update']);
    expect(await names(await open({ url: 'http://127.0.0.1/mcp?toolsets=all' }))).toEqual(all);
    // Over a real socket, as a host configured with that URL connects.
    const real = await connectClient(undefined, { url: `${http.url}/mcp?toolsets=docs`, key });
    clients.push(real);
    expect(await names(real)).toEqual(['answer_query', 'docs_corpora', 'get_documents', 'search_documents']);
  });

  it('refuses an unknown toolset, naming it and the known ones', async () => {
    const c = await open({ url: 'http://127.0.0.1/mcp?toolsets=knowlege' });
    await expect(c.listTools()).rejects.toThrow(
      "Unknown toolset 'knowlege': choose among knowledge, questions, community, docs, account, admin (or all).",
    );
  });

  it('lists the node’s LORE_TOOLSETS to a client that chooses none, and a client’s choice over it', async () => {
    const chosen = await names(await open({}, narrow.app));
    expect(chosen).toContain('updateKnowledgeSources');
    expect(chosen).toContain('cqAskQuestion');
    expect(chosen).not.toContain('agent_register');
    expect(chosen).not.toContain('den_list');
    const own = await names(await open({ url: 'http://127.0.0.1/mcp?toolsets=community' }, narrow.app));
    expect(own).toContain('den_list');
    expect(own).not.toContain('cqAskQuestion');
  });

  it('refuses a LORE_TOOLSETS naming no toolset it knows, at start', async () => {
    const d = tempDir();
    try {
      await expect(startAllInOne(testConfig(d.path, { LORE_TOOLSETS: 'knowledge,nope' }))).rejects.toThrow(
        /LORE_TOOLSETS.*Unknown toolset 'nope'/s,
      );
    } finally {
      d.cleanup();
    }
  });

  it('keeps structured content valid for SDK v1 and v2 clients against the compacted output schemas', async () => {
    const v2 = await open({ key });
    const tools = (await v2.listTools()).tools;
    const shared = tools.filter((t) => JSON.stringify(t.outputSchema).includes('"$defs"')).map((t) => t.name);
    expect(shared).toEqual(expect.arrayContaining(['cqGetActiveUsers', 'platform_stats']));
    expect(JSON.stringify(tools)).not.toContain('9007199254740991');
    const v1 = new V1Client({ name: 'toolsets-v1', version: '1.0.0' });
    await v1.connect(
      new V1Http(new URL('http://127.0.0.1/mcp'), {
        fetch: appFetch(lore.app),
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(v1);
    await v1.listTools();
    for (const [name, args] of [
      ['cqGetActiveUsers', { flag: true }],
      ['platform_stats', {}],
    ] as const) {
      // Both SDKs check structuredContent against the listed output schema, and throw when it does not fit.
      const one = await v1.callTool({ name, arguments: args });
      expect(one.isError, name).toBeFalsy();
      expect(one.structuredContent, name).toBeTruthy();
      const two = await v2.callTool({ name, arguments: args });
      expect(two.isError, name).toBeFalsy();
    }
  });
});
