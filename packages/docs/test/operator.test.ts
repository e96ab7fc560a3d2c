import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, call, ok, tempDir } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startDocs, writeTree } from './helpers.js';

interface Corpora {
  corpora: Array<{ source: string; documents: number; chunks: number; updateTime: string }>;
  documents: number;
  chunks: number;
  operator: boolean;
}

describe('corpora and ingest by an operator, through an MCP client', () => {
  let docs: Awaited<ReturnType<typeof startDocs>>;
  let operator: Client;
  let reader: Client;
  const files = tempDir();

  beforeAll(async () => {
    docs = await startDocs({ LORE_DOCS_OPERATORS: 'opal, @otto' });
    operator = await docs.client('opal');
    reader = await docs.client('reader');
    const pages: Record<string, string> = {};
    for (let i = 0; i < 12; i++)
      pages[`guide/page-${i}.md`] = `# Page ${i}\n\n${`Widgets number ${i} turn clockwise. `.repeat(40)}`;
    writeTree(files.path, pages);
  });
  afterAll(async () => {
    await docs.close();
    files.cleanup();
  });

  it('lists no corpus at first, and says who may ingest', async () => {
    const r = await ok<Corpora>(reader, 'docs_corpora');
    expect(r.data).toEqual({ corpora: [], documents: 0, chunks: 0, operator: false });
    expect(r.text).toBe('No documentation corpus yet.');
    expect((await ok<Corpora>(operator, 'docs_corpora')).data.operator).toBe(true);
  });

  it('refuses an ingest from an agent that is not an operator', async () => {
    const r = await call(reader, 'docs_ingest', { inputs: [join(files.path, 'guide')] });
    expect(r.error).toMatchObject({ code: 403 });
    expect(r.error?.message).toContain('LORE_DOCS_OPERATORS');
    expect((await ok<Corpora>(reader, 'docs_corpora')).data.corpora).toEqual([]);
  });

  it('ingests a folder for an operator, reporting progress, and lists it with its chunks', async () => {
    const seen: Array<{ progress: number; total?: number }> = [];
    const r = await operator.callTool(
      { name: 'docs_ingest', arguments: { inputs: [join(files.path, 'guide')], source: 'widgets' } },
      { onprogress: (p) => seen.push({ progress: p.progress, ...(p.total ? { total: p.total } : {}) }) },
    );
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ source: 'widgets', added: 12, updated: 0, removed: 0 });
    expect(seen.at(-1)).toEqual({ progress: 12, total: 12 });
    const listed = await ok<Corpora>(reader, 'docs_corpora');
    expect(listed.data.corpora).toHaveLength(1);
    expect(listed.data.corpora[0]).toMatchObject({ source: 'widgets', documents: 12 });
    expect(listed.data.corpora[0]!.chunks).toBeGreaterThanOrEqual(12);
    expect(listed.data.chunks).toBe(listed.data.corpora[0]!.chunks);
    expect(listed.text).toMatch(/^1 corpus, 12 documents, \d+ chunks:\n- widgets: 12 documents/);
    const found = await ok<{ results: unknown[] }>(reader, 'search_documents', {
      query: 'widgets clockwise',
      corpus: 'widgets',
    });
    expect(found.data.results.length).toBeGreaterThan(0);
  });

  it.each([
    [{ inputs: [] }, 'inputs'],
    [{ inputs: ['/no/such/folder/anywhere'] }, 'inputs'],
    [{ inputs: ['x'], source: 'bad name!' }, 'source'],
    [{ inputs: ['x'], maxPages: 0 }, 'maxPages'],
  ])('names the field of a bad ingest %j', async (args, field) => {
    const r = await call(operator, 'docs_ingest', args);
    expect(r.error).toMatchObject({ code: 400, data: { field } });
  });
});

describe('the operator on a fresh install, with LORE_DOCS_OPERATORS unset', () => {
  let docs: Awaited<ReturnType<typeof startDocs>>;
  beforeAll(async () => {
    docs = await startDocs({});
  });
  afterAll(async () => {
    await docs.close();
  });

  it("is the node's owner: the agent named in owner.handle, else `owner`; nobody else", async () => {
    const owner = await docs.client('owner');
    const other = await docs.client('owner_n1');
    const reader = await docs.client('reader');
    expect((await ok<Corpora>(owner, 'docs_corpora')).data.operator).toBe(true);
    expect((await ok<Corpora>(other, 'docs_corpora')).data.operator).toBe(false);
    expect((await ok<Corpora>(reader, 'docs_corpora')).data.operator).toBe(false);
    const refused = await call(reader, 'docs_ingest', { inputs: ['https://example.com/'] });
    expect(refused.error).toMatchObject({ code: 403 });

    // Where the aggregator created the owner under another handle, that one is the operator.
    writeFileSync(join(docs.deps.config.LORE_DATA_DIR, 'owner.handle'), 'owner_n1\n');
    expect((await ok<Corpora>(other, 'docs_corpora')).data.operator).toBe(true);
    expect((await ok<Corpora>(owner, 'docs_corpora')).data.operator).toBe(false);
  });
});

describe('an operator crawling an address on this machine or its network', () => {
  let site: Awaited<ReturnType<typeof listen>>;
  const html = (title: string) =>
    `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Gears mesh quietly. '.repeat(30)}</p></main></body></html>`;
  beforeAll(async () => {
    site = await listen((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/docs/') {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html('Gears'));
    });
  });
  afterAll(async () => {
    await site.close();
  });

  it('is refused by default, naming the setting', async () => {
    const docs = await startDocs({ LORE_DOCS_OPERATORS: 'opal' });
    try {
      const r = await call(await docs.client('opal'), 'docs_ingest', { inputs: [`${site.url}/docs/`] });
      const text = JSON.stringify(r);
      expect(text).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
      expect(text).toContain('LORE_CRAWL_ALLOW_PRIVATE=true');
      expect((await ok<Corpora>(await docs.client('reader'), 'docs_corpora')).data.documents).toBe(0);
    } finally {
      await docs.close();
    }
  });

  it('answers a sitemap on a private address with a 400 naming the input and the setting', async () => {
    const docs = await startDocs({ LORE_DOCS_OPERATORS: 'opal' });
    try {
      const r = await call(await docs.client('opal'), 'docs_ingest', { inputs: [`${site.url}/sitemap.xml`] });
      expect(r.error).toMatchObject({ code: 400, data: { field: 'inputs' } });
      expect(r.error?.message).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
      expect(r.error?.message).toContain('LORE_CRAWL_ALLOW_PRIVATE=true');
    } finally {
      await docs.close();
    }
  });

  it('is crawled when the service is started with LORE_CRAWL_ALLOW_PRIVATE=true', async () => {
    const docs = await startDocs({ LORE_DOCS_OPERATORS: 'opal', LORE_CRAWL_ALLOW_PRIVATE: 'true' });
    try {
      const r = await ok<{ added: number }>(await docs.client('opal'), 'docs_ingest', {
        inputs: [`${site.url}/docs/`],
        source: 'gears',
      });
      expect(r.data.added).toBe(1);
      const found = await ok<{ results: unknown[] }>(await docs.client('reader'), 'search_documents', {
        query: 'gears mesh',
        corpus: 'gears',
      });
      expect(found.data.results.length).toBeGreaterThan(0);
    } finally {
      await docs.close();
    }
  });
});
