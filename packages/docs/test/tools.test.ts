import { join } from 'node:path';
import { createLogger, databaseFor } from '@lore/kit';
import { migrationsFolder, openDatabase } from '@lore/kit/db';
import { type Client, call, describeConformance, ok, tempDir } from '@lore/kit/testing';
import { StatsReply, statsRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsStore, ingestInputs } from '../src/index.js';
import * as tables from '../src/tables.js';
import { listen, startDocs, writeTree } from './helpers.js';

const log = createLogger({ name: 'test', level: 'silent' });

interface SearchOut {
  results: Array<{
    parent: string;
    id: string;
    content: string;
    relevanceScore: number;
    document: { name: string; title: string; uri: string };
    foundBy: string[];
  }>;
  nextPageToken: string;
}
interface DocOut {
  name: string;
  uri: string;
  title: string;
  description: string;
  content: string;
  dataSource: string;
  updateTime: string;
}
interface GetOut {
  documents: DocOut[];
  missing: Array<{ name: string; error: string }>;
}
interface AnswerOut {
  answerText: string;
  references: string[];
  strategy: string;
  model?: string;
}

const T_OLD = Date.parse('2024-03-01T00:00:00Z');
const T_NEW = Date.parse('2025-06-01T00:00:00Z');

/** Ingests a small corpus straight into the service's database (as the CLI would). */
async function seed(dataDir: string, root: string) {
  const config = (await import('@lore/kit/testing')).testConfig(dataDir);
  const db = await openDatabase({
    ...databaseFor(config, 'docs'),
    schema: tables,
    migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
  });
  const store = new DocsStore(db);
  const widgetSections = Array.from(
    { length: 13 },
    (_, i) =>
      `## Widget step ${i + 1}\n\nStep ${i + 1} of assembling the widget: attach part ${i + 1} with the sprocket.`,
  ).join('\n\n');
  writeTree(join(root, 'guides'), {
    'widgets.md': `# Widget assembly\n\nHow to assemble a widget from parts.\n\n${widgetSections}`,
    'routing.md':
      '# Routing\n\nRoutes match the request path against patterns. A path parameter such as `:id` captures one segment.',
    'caching.md':
      '# Caching\n\nResponses are cached for the max-age given in the Cache-Control header. Stale entries are revalidated with ETags.',
    'errors.md':
      '# Errors\n\nThe error `E_TIMEOUT: upstream did not answer` means a dependency took longer than 30 seconds.',
  });
  writeTree(join(root, 'reference'), {
    'cli.md':
      '# CLI reference\n\nThe `--verbose` flag prints every request. The `--dry-run` flag shows what would change.',
    'config.html':
      '<html><head><title>Configuration | Ref</title><meta name="description" content="All settings."></head><body><main><h1>Configuration</h1><p>Set <code>PORT</code> to change the port the widget server listens on.</p></main></body></html>',
  });
  await ingestInputs({ store, log, now: () => T_OLD }, [join(root, 'guides')], {
    source: 'guides',
    baseUri: 'https://docs.example.com/guides/',
  });
  await ingestInputs({ store, log, now: () => T_NEW }, [join(root, 'reference')], {
    source: 'reference',
    baseUri: 'https://ref.example.com/',
  });
  db.$client.close();
}

describe('docs tools through an MCP client', () => {
  let docs: Awaited<ReturnType<typeof startDocs>>;
  let client: Client;
  const files = tempDir();

  beforeAll(async () => {
    docs = await startDocs({ LORE_ANSWER_QUOTA_PER_MINUTE: '3', LORE_ANSWER_QUOTA_PER_DAY: '5' });
    await seed(docs.dir, files.path);
    client = await docs.client('reader');
  });
  afterAll(async () => {
    await docs.close();
    files.cleanup();
  });

  it('lists the reading tools, read-only, idempotent, non-destructive and closed-world, with output schemas', async () => {
    const { tools: all } = await client.listTools();
    expect(all.map((t) => t.name).sort()).toEqual([
      'answer_query',
      'docs_corpora',
      'docs_ingest',
      'get_documents',
      'search_documents',
    ]);
    const tools = all.filter((t) => t.name !== 'docs_ingest');
    for (const t of tools) {
      expect(t.annotations).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
      expect(t.outputSchema).toBeDefined();
    }
    const answer = tools.find((t) => t.name === 'answer_query')!;
    expect(answer.description).toMatch(/grounded, synthesized conceptual answer/);
    expect(answer.description).toMatch(/search_documents and then get_documents/);
    expect(Object.keys((answer.inputSchema as { properties: object }).properties)).toEqual([
      'query',
      'corpus',
    ]);
    const search = tools.find((t) => t.name === 'search_documents')!;
    expect(Object.keys((search.inputSchema as { properties: object }).properties).sort()).toEqual([
      'corpus',
      'filter',
      'pageSize',
      'pageToken',
      'query',
    ]);
  });

  it('search_documents returns chunks with parent, id, content, score and document', async () => {
    const r = await ok<SearchOut>(client, 'search_documents', {
      query: 'how do path parameters work in routes?',
    });
    expect(r.data.results.length).toBeGreaterThan(0);
    const top = r.data.results[0]!;
    expect(top).toEqual({
      parent: 'documents/docs.example.com/guides/routing',
      id: 'chunk_0',
      content: expect.stringContaining('A path parameter such as `:id` captures one segment.'),
      relevanceScore: expect.any(Number),
      document: {
        name: 'documents/docs.example.com/guides/routing',
        title: 'Routing',
        uri: 'https://docs.example.com/guides/routing',
      },
      // No embedding model here (LORE_EMBEDDINGS=off): every hit is found by its words.
      foundBy: ['words'],
    });
    expect(top.relevanceScore).toBeGreaterThan(0);
    expect(r.text).toContain('found by words');
    expect(r.text).toContain('documents/docs.example.com/guides/routing');
    // Exact strings such as error codes and flags are found.
    expect(
      (await ok<SearchOut>(client, 'search_documents', { query: 'E_TIMEOUT' })).data.results[0]!.parent,
    ).toBe('documents/docs.example.com/guides/errors');
    expect(
      (await ok<SearchOut>(client, 'search_documents', { query: '--dry-run flag' })).data.results[0]!.parent,
    ).toBe('documents/ref.example.com/cli');
    // Only stop words, or nothing matching: no results, not an error.
    expect((await ok<SearchOut>(client, 'search_documents', { query: 'the and of' })).data).toEqual({
      results: [],
      nextPageToken: '',
    });
    expect((await ok<SearchOut>(client, 'search_documents', { query: 'xylophone' })).data.results).toEqual(
      [],
    );
  });

  it('pages with opaque tokens bound to the query', async () => {
    const first = await ok<SearchOut>(client, 'search_documents', { query: 'widget sprocket' });
    expect(first.data.results).toHaveLength(5);
    expect(first.data.nextPageToken).not.toBe('');
    const all = (await ok<SearchOut>(client, 'search_documents', { query: 'widget sprocket', pageSize: 20 }))
      .data;
    const seen: string[] = first.data.results.map((r) => `${r.parent}#${r.id}`);
    let token = first.data.nextPageToken;
    while (token) {
      const page = await ok<SearchOut>(client, 'search_documents', {
        query: 'widget sprocket',
        pageToken: token,
      });
      seen.push(...page.data.results.map((r) => `${r.parent}#${r.id}`));
      token = page.data.nextPageToken;
    }
    expect(seen).toEqual(all.results.map((r) => `${r.parent}#${r.id}`));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(1 + 13 + 1); // the widget page's intro and every step, and the config page's widget server
    expect(all.nextPageToken).toBe('');

    const other = await call(client, 'search_documents', {
      query: 'caching',
      pageToken: first.data.nextPageToken,
    });
    expect(other.error).toMatchObject({ code: 400, data: { field: 'pageToken' } });
    expect(other.error?.message).toMatch(/another query/);
    const garbage = await call(client, 'search_documents', { query: 'widget sprocket', pageToken: '!!!' });
    expect(garbage.error).toMatchObject({ code: 400, data: { field: 'pageToken' } });
  });

  it('validates its input, naming the field', async () => {
    expect((await call(client, 'search_documents', { query: 'x', pageSize: 21 })).error).toMatchObject({
      code: 400,
      data: { field: 'pageSize' },
    });
    expect((await call(client, 'search_documents', { query: 'x'.repeat(501) })).error).toMatchObject({
      code: 400,
      data: { field: 'query' },
    });
    expect((await call(client, 'search_documents', {})).error).toMatchObject({
      code: 400,
      message: 'Missing required field: query',
    });
    expect(
      (await call(client, 'search_documents', { query: 'x', filter: 'title = "a"' })).error,
    ).toMatchObject({
      code: 400,
      data: { field: 'filter' },
    });
  });

  it('filters on data_source, uri and update_time with =, !=, <, >, AND, OR and NOT', async () => {
    const parents = async (filter: string, query = 'widget') =>
      (await ok<SearchOut>(client, 'search_documents', { query, filter, pageSize: 20 })).data.results.map(
        (r) => r.parent,
      );
    const unique = (xs: string[]) => [...new Set(xs)].sort();
    expect(unique(await parents('data_source = "reference"'))).toEqual(['documents/ref.example.com/config']);
    expect(unique(await parents('data_source != "reference"'))).toEqual([
      'documents/docs.example.com/guides/widgets',
    ]);
    expect(unique(await parents('data_source = "guides" OR data_source = "reference"'))).toHaveLength(2);
    expect(unique(await parents('update_time > "2025-01-01T00:00:00Z"'))).toEqual([
      'documents/ref.example.com/config',
    ]);
    expect(unique(await parents('update_time < "2025-01-01T00:00:00Z"'))).toEqual([
      'documents/docs.example.com/guides/widgets',
    ]);
    expect(unique(await parents(`update_time = "${new Date(T_OLD).toISOString()}"`))).toEqual([
      'documents/docs.example.com/guides/widgets',
    ]);
    expect(unique(await parents('uri = "https://ref.example.com/config"'))).toEqual([
      'documents/ref.example.com/config',
    ]);
    expect(
      unique(await parents('uri = "https://docs.example.com/*" AND NOT data_source = "reference"')),
    ).toEqual(['documents/docs.example.com/guides/widgets']);
    expect(await parents('data_source = "guides" AND data_source = "reference"')).toEqual([]);
    // Paging works under a filter too.
    const first = await ok<SearchOut>(client, 'search_documents', {
      query: 'widget sprocket',
      filter: 'data_source = "guides"',
      pageSize: 10,
    });
    const second = await ok<SearchOut>(client, 'search_documents', {
      query: 'widget sprocket',
      filter: 'data_source = "guides"',
      pageToken: first.data.nextPageToken,
      pageSize: 10,
    });
    expect(first.data.results).toHaveLength(10);
    expect(second.data.results).toHaveLength(4);
    expect(second.data.nextPageToken).toBe('');
    const mismatch = await call(client, 'search_documents', {
      query: 'widget sprocket',
      pageToken: first.data.nextPageToken,
    });
    expect(mismatch.error?.data?.field).toBe('pageToken');
  });

  it('get_documents returns whole Markdown documents in the order asked, reporting unknown names', async () => {
    const r = await ok<GetOut>(client, 'get_documents', {
      names: [
        'documents/ref.example.com/config',
        'documents/nope/missing',
        'documents/docs.example.com/guides/routing',
        'documents/ref.example.com/config',
      ],
    });
    expect(r.data.documents.map((d) => d.name)).toEqual([
      'documents/ref.example.com/config',
      'documents/docs.example.com/guides/routing',
    ]);
    expect(r.data.missing).toEqual([{ name: 'documents/nope/missing', error: 'not found' }]);
    expect(r.data.documents[0]).toEqual({
      name: 'documents/ref.example.com/config',
      uri: 'https://ref.example.com/config',
      title: 'Configuration',
      description: 'All settings.',
      content: '# Configuration\n\nSet `PORT` to change the port the widget server listens on.',
      dataSource: 'reference',
      updateTime: new Date(T_NEW).toISOString(),
    });
    expect(r.text).toMatch(/Not found: documents\/nope\/missing/);
    const onlyMissing = await ok<GetOut>(client, 'get_documents', { names: ['documents/x'] });
    expect(onlyMissing.data).toEqual({
      documents: [],
      missing: [{ name: 'documents/x', error: 'not found' }],
    });
  });

  it('get_documents takes 1 to 20 names', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `documents/x/${i}`);
    expect((await ok<GetOut>(client, 'get_documents', { names: twenty })).data.missing).toHaveLength(20);
    const tooMany = await call(client, 'get_documents', { names: [...twenty, 'documents/x/20'] });
    expect(tooMany.error).toMatchObject({ code: 400, data: { field: 'names' } });
    expect(tooMany.error?.message).toMatch(/names/);
    expect((await call(client, 'get_documents', { names: [] })).error).toMatchObject({
      code: 400,
      data: { field: 'names' },
    });
  });

  it('answer_query answers from the documents, citing them, and says how', async () => {
    const asker = await docs.client('asker');
    const r = await ok<AnswerOut>(asker, 'answer_query', {
      query: 'How long are responses cached and how are stale entries checked?',
    });
    expect(r.data.strategy).toBe('extractive');
    expect(r.data.references[0]).toBe('documents/docs.example.com/guides/caching');
    expect(r.data.answerText).toMatch(/max-age/);
    expect(r.data.answerText).toMatch(/\[1\]/);
    expect(r.data.answerText).toContain('[1] documents/docs.example.com/guides/caching');
    const none = await ok<AnswerOut>(asker, 'answer_query', { query: 'xylophone tuning' });
    expect(none.data).toMatchObject({ references: [], strategy: 'extractive' });
  });

  it('answer_query has a per-agent quota: past it, a 429 pointing to search_documents', async () => {
    const heavy = await docs.client('heavy');
    for (let i = 0; i < 3; i++) await ok(heavy, 'answer_query', { query: 'what does E_TIMEOUT mean?' });
    const refused = await call(heavy, 'answer_query', { query: 'what does E_TIMEOUT mean?' });
    expect(refused.error?.code).toBe(429);
    expect(refused.error?.message).toMatch(/quota/);
    expect(refused.error?.message).toMatch(/search_documents/);
    expect(refused.error?.data).toMatchObject({
      retryAfterSeconds: expect.any(Number),
      window: 'minute',
      limit: 3,
    });
    expect(refused.error!.data!.retryAfterSeconds as number).toBeGreaterThan(0);
    // Other agents and other tools are unaffected.
    expect(
      (await call(await docs.client('light'), 'answer_query', { query: 'what does E_TIMEOUT mean?' }))
        .isError,
    ).toBe(false);
    expect((await call(heavy, 'search_documents', { query: 'E_TIMEOUT' })).isError).toBe(false);
  });

  it("answer_query writes with the client's model when it offers sampling, charging the quota once", async () => {
    const c = await docs.client('sampler', { capabilities: { sampling: {} } });
    const prompts: Array<{ system: string; user: string }> = [];
    c.setRequestHandler('sampling/createMessage', async (req) => {
      prompts.push({
        system: req.params.systemPrompt ?? '',
        user: (req.params.messages[0]!.content as { text: string }).text,
      });
      return {
        role: 'assistant',
        model: 'client-model',
        content: { type: 'text', text: 'Cached for max-age; stale entries are revalidated with ETags [1].' },
      };
    });
    // Three answers fit the quota of three: the round that asks the client's model is not charged.
    for (let i = 0; i < 3; i++) {
      const r = await ok<AnswerOut>(c, 'answer_query', { query: 'How long are responses cached?' });
      expect(r.data.strategy).toBe('sampling');
      expect(r.data.answerText).toBe(
        'Cached for max-age; stale entries are revalidated with ETags [1].\n\nReferences:\n[1] documents/docs.example.com/guides/caching',
      );
      expect(r.data.references).toEqual(['documents/docs.example.com/guides/caching']);
    }
    expect(prompts).toHaveLength(3);
    expect(prompts[0]!.system).toMatch(/quoted DATA/);
    expect(prompts[0]!.user).toMatch(
      /<passage n="1" id="documents\/docs.example.com\/guides\/caching#chunk_0" source="documents\/docs.example.com\/guides\/caching">/,
    );
    expect((await call(c, 'answer_query', { query: 'How long are responses cached?' })).error?.code).toBe(
      429,
    );
  });

  describeConformance('docs', {
    service: () => docs.service,
    tools: ['answer_query', 'docs_corpora', 'docs_ingest', 'get_documents', 'search_documents'],
    args: { search_documents: { query: 'x' }, answer_query: { query: 'How long are responses cached?' } },
  });

  it('answers rpc.docs.stats with the corpus size and calls', async () => {
    const reply = StatsReply.parse(
      await docs.deps.bus.request(statsRpc('docs').subject, {
        since: new Date(Date.now() - 3_600_000).toISOString(),
      }),
    );
    expect(reply.service).toBe('docs');
    expect(reply.figures).toMatchObject({
      documents: 6,
      dataSources: { guides: 4, reference: 2 },
      chunks: expect.any(Number),
      calls: expect.any(Number),
      callsToday: expect.any(Number),
    });
    expect(reply.figures.calls as number).toBeGreaterThan(10);
    expect((reply.figures.callsByTool as Record<string, number>).get_documents).toBeGreaterThan(0);
  });
});

describe('with a model endpoint and an embeddings endpoint configured', () => {
  const calls = { chat: 0, embeddings: 0, auth: [] as string[], models: [] as string[] };
  let server: Awaited<ReturnType<typeof listen>>;
  let docs: Awaited<ReturnType<typeof startDocs>>;
  const files = tempDir();

  // A deterministic bag-of-words embedding: similar words land in the same buckets.
  const SYNONYMS: Record<string, string> = { car: 'automobile', vehicle: 'automobile', auto: 'automobile' };
  const embed = (text: string) => {
    const v = new Array(64).fill(0);
    for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      const w = SYNONYMS[raw] ?? raw;
      let h = 0;
      for (const c of w) h = (h * 31 + c.charCodeAt(0)) % 64;
      v[h] += 1;
    }
    return v;
  };

  beforeAll(async () => {
    server = await listen(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const json = JSON.parse(body || '{}') as {
        model?: string;
        input?: string[];
        messages?: Array<{ content: string }>;
      };
      calls.auth.push(String(req.headers.authorization));
      calls.models.push(String(json.model));
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/v1/embeddings') {
        calls.embeddings++;
        res.end(
          JSON.stringify({
            data: (json.input ?? []).map((t, index) => ({ index, embedding: embed(t) })),
            model: json.model,
          }),
        );
      } else {
        calls.chat++;
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'test-model',
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: {
                  role: 'assistant',
                  content: 'Automobiles need an oil change every 10,000 km [1].',
                },
              },
            ],
          }),
        );
      }
    });
    docs = await startDocs({
      LORE_LLM_BASE_URL: `${server.url}/v1`,
      LORE_LLM_MODEL: 'test-model',
      LORE_EMBEDDINGS_BASE_URL: `${server.url}/v1`,
      LORE_EMBEDDINGS_MODEL: 'test-embed',
      LORE_EMBEDDINGS_API_KEY: 'emb-key',
    });
    writeTree(files.path, {
      'maintenance.md': '# Automobile maintenance\n\nAn automobile needs an oil change every 10,000 km.',
      'bikes.md': '# Bicycles\n\nBicycle chains need oil every 500 km.',
    });
    const { runDocsCli } = await import('../src/index.js');
    const { capture } = await import('./helpers.js');
    const out = capture();
    expect(
      await runDocsCli(['ingest', files.path, '--source', 'garage'], {
        config: docs.deps.config,
        stdout: out.stream,
        stderr: capture().stream,
        isTTY: false,
      }),
    ).toBe(0);
  });
  afterAll(async () => {
    await docs.close();
    await server.close();
    files.cleanup();
  });

  it('embeds chunks in the background after an ingest and fuses vector and keyword ranks at search', async () => {
    const client = await docs.client('driver');
    // "car" shares no keyword with the automobile page; only the vectors find it, once the
    // service has embedded the chunks the CLI wrote (it notices the corpus changed on a search).
    const page = 'documents/local/' + files.path.split('/').pop() + '/maintenance';
    let r = await ok<SearchOut>(client, 'search_documents', { query: 'car' });
    for (let i = 0; i < 400 && r.data.results[0]?.parent !== page; i++) {
      await new Promise((done) => setTimeout(done, 50));
      r = await ok<SearchOut>(client, 'search_documents', { query: 'car' });
    }
    expect(r.data.results[0]?.parent).toBe(page);
    expect(r.data.results[0]?.foundBy).toEqual(['meaning']);
    expect(calls.embeddings).toBeGreaterThan(0);
    expect(calls.auth).toContain('Bearer emb-key');
    expect(calls.models).toContain('test-embed');
    const both = await ok<SearchOut>(client, 'search_documents', { query: 'oil change', pageSize: 1 });
    expect(both.data.results).toHaveLength(1);
    expect(both.data.nextPageToken).not.toBe('');
  });

  it('answers with the configured endpoint and says so', async () => {
    const client = await docs.client('mechanic');
    const r = await ok<AnswerOut>(client, 'answer_query', {
      query: 'How often does an automobile need an oil change?',
    });
    expect(calls.chat).toBe(1);
    expect(r.data.strategy).toBe('endpoint');
    expect(r.data.model).toBe('test-model');
    expect(r.data.references).toHaveLength(1);
    expect(r.data.references[0]).toMatch(/maintenance$/);
    expect(r.data.answerText).toMatch(
      /^Automobiles need an oil change every 10,000 km \[1\]\.\n\nReferences:\n\[1\] documents\/local\/.*maintenance$/,
    );
  });
});
