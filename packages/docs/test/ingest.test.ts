import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLogger, databaseFor } from '@lore/kit';
import { MemoryBus, Outbox } from '@lore/kit/bus';
import { type Database, migrationsFolder, openDatabase } from '@lore/kit/db';
import { ok, tempDir, testConfig } from '@lore/kit/testing';
import { DocsCorpusIngested, type EventEnvelope } from '@lore/schema';
import { stemmedText } from '@lore/search';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawl, DocsStore, ingestInputs, runDocsCli } from '../src/index.js';
import * as tables from '../src/tables.js';
import { capture, ftsSegments, listen, startDocs, writeTree } from './helpers.js';

const log = createLogger({ name: 'test', level: 'silent' });

async function openStore(dataDir: string) {
  const config = testConfig(dataDir);
  const db = await openDatabase({
    ...databaseFor(config, 'docs'),
    schema: tables,
    migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
  });
  return { db, store: new DocsStore(db), config };
}

const names = async (db: Database) =>
  (
    (await db.$client.execute('select name from documents order by name')).rows as unknown as Array<{
      name: string;
    }>
  ).map((r) => r.name);
const ftsHits = async (db: Database, term: string) =>
  Number(
    (
      await db.$client.execute({
        sql: 'select count(*) as n from chunks_fts where chunks_fts match ?',
        // The index holds stems (`stemmedText`), as searches ask for them.
        args: [`"${stemmedText(term)}"`],
      })
    ).rows[0]!.n,
  );

describe('ingesting a folder', () => {
  const dir = tempDir();
  const root = join(dir.path, 'site');
  let db: Database;
  let store: DocsStore;
  beforeAll(async () => {
    ({ db, store } = await openStore(join(dir.path, 'data')));
  });
  afterAll(() => {
    db.$client.close();
    dir.cleanup();
  });

  it('adds, updates, removes and leaves unchanged documents by content hash', async () => {
    writeTree(root, {
      'index.md': '# Welcome\n\nThe start page about zebrafish.',
      'guide/install.md': '---\ntitle: Installing\n---\n# Install\n\nRun the installer with quagga flags.',
      'guide/usage.mdx': "import X from './x';\n\n# Usage\n\n<X />\n\nUse it daily with walrus mode.",
      'notes.txt': 'Notes\n\nPlain text about narwhals.',
      'ignored.json': '{}',
      'node_modules/dep/README.md': '# not ingested',
    });
    const first = await ingestInputs({ store, log }, [root], {
      source: 'site',
      baseUri: 'https://docs.example.com/',
    });
    expect(first).toMatchObject({
      source: 'site',
      added: 4,
      updated: 0,
      removed: 0,
      unchanged: 0,
      failed: [],
    });
    expect(first.chunks).toBeGreaterThanOrEqual(4);
    expect(await names(db)).toEqual([
      'documents/docs.example.com/guide/install',
      'documents/docs.example.com/guide/usage',
      'documents/docs.example.com/index',
      'documents/docs.example.com/notes',
    ]);
    const docs = await store.documents([
      'documents/docs.example.com/guide/install',
      'documents/docs.example.com/index',
    ]);
    expect(docs.get('documents/docs.example.com/guide/install')).toMatchObject({
      title: 'Installing',
      uri: 'https://docs.example.com/guide/install',
      dataSource: 'site',
      description: 'Run the installer with quagga flags.',
    });
    expect(docs.get('documents/docs.example.com/index')?.uri).toBe('https://docs.example.com/');
    const usage = (await store.documents(['documents/docs.example.com/guide/usage'])).get(
      'documents/docs.example.com/guide/usage',
    )!;
    expect(usage.content).not.toContain('import X');
    expect(usage.content).not.toContain('<X />');

    // Same files again: nothing to do.
    const again = await ingestInputs({ store, log }, [root], {
      source: 'site',
      baseUri: 'https://docs.example.com/',
    });
    expect(again).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 4, chunks: 0 });

    // One changed, one gone, one new.
    const before = docs.get('documents/docs.example.com/guide/install')!.updateTime;
    writeFileSync(
      join(root, 'guide/install.md'),
      '---\ntitle: Installing\n---\n# Install\n\nRun the installer with okapi flags.',
    );
    rmSync(join(root, 'notes.txt'));
    writeTree(root, {
      'guide/faq.html':
        '<html><head><title>FAQ</title></head><body><h1>FAQ</h1><p>Answers about lemurs.</p></body></html>',
    });
    const third = await ingestInputs({ store, log }, [root], {
      source: 'site',
      baseUri: 'https://docs.example.com/',
    });
    expect(third).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 2 });
    expect(await names(db)).toContain('documents/docs.example.com/guide/faq');
    expect(await names(db)).not.toContain('documents/docs.example.com/notes');
    expect(await ftsHits(db, 'narwhals')).toBe(0);
    expect(await ftsHits(db, 'quagga')).toBe(0);
    expect(await ftsHits(db, 'okapi')).toBe(1);
    expect(await ftsHits(db, 'lemurs')).toBe(1);
    const updated = (await store.documents(['documents/docs.example.com/guide/install'])).get(
      'documents/docs.example.com/guide/install',
    )!;
    expect(updated.updateTime).toBeGreaterThanOrEqual(before);
    const faq = (await store.documents(['documents/docs.example.com/guide/faq'])).get(
      'documents/docs.example.com/guide/faq',
    )!;
    expect(faq).toMatchObject({ title: 'FAQ', description: 'Answers about lemurs.' });
    expect(faq.content).toBe('# FAQ\n\nAnswers about lemurs.');
  });

  it('removes vanished documents of the same source only', async () => {
    const other = join(dir.path, 'other');
    writeTree(other, { 'a.md': '# Other A\n\nAbout capybaras.' });
    const o = await ingestInputs({ store, log }, [other], { source: 'other' });
    expect(o).toMatchObject({ added: 1, removed: 0 });
    expect(await names(db)).toContain('documents/local/other/a');
    const site = await ingestInputs({ store, log }, [root], {
      source: 'site',
      baseUri: 'https://docs.example.com/',
    });
    expect(site.removed).toBe(0);
    expect(await names(db)).toContain('documents/local/other/a');
    // --keep-missing keeps documents not seen this time.
    rmSync(join(other, 'a.md'));
    writeTree(other, { 'b.md': '# Other B\n\nAbout tapirs.' });
    const kept = await ingestInputs({ store, log }, [other], { source: 'other', prune: false });
    expect(kept).toMatchObject({ added: 1, removed: 0 });
    expect(await names(db)).toEqual(
      expect.arrayContaining(['documents/local/other/a', 'documents/local/other/b']),
    );
  });

  it('publishes lore.docs.corpus.ingested through the outbox when something changed', async () => {
    const bus = new MemoryBus();
    const seen: EventEnvelope[] = [];
    await bus.listen(DocsCorpusIngested.subject, (e) => seen.push(e));
    const outbox = new Outbox(db, bus, { node: 'n', service: 'docs' }, log);
    const src = join(dir.path, 'evented');
    writeTree(src, { 'x.md': '# X\n\nAbout axolotls.', 'y.md': '# Y\n\nAbout pangolins.' });
    await ingestInputs({ store, outbox, log }, [src], { source: 'evented' });
    await ingestInputs({ store, outbox, log }, [src], { source: 'evented' }); // unchanged: no event
    await outbox.flush();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.payload).toEqual({
      source: 'evented',
      added: 2,
      updated: 0,
      removed: 0,
      unchanged: 0,
      documents: 2,
      chunks: 2,
    });
    expect(seen[0]!.producer).toEqual({ node: 'n', service: 'docs' });
    await bus.close();
  });
});

describe('merging the index after a bulk ingest', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const pages = (n: number, word: string) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`p${i}.md`, `# Page ${i}\n\nAbout ${word}, page ${i}.`]),
    );

  it('merges the segments of several write transactions into one when the ingest wrote most of the chunks', async () => {
    const { db, store } = await openStore(join(dir.path, 'merged'));
    try {
      const src = join(dir.path, 'okapis');
      writeTree(src, pages(9, 'okapis'));
      // Three transactions, three segments (FTS5's own merging starts at four).
      const r = await ingestInputs({ store, log }, [src], { source: 'okapis', batchSize: 3 });
      expect(r).toMatchObject({ added: 9, chunks: 9 });
      expect(r.indexMergeSteps).toBeGreaterThan(0);
      // One segment left: merging again finds nothing to do, and every chunk is still found.
      expect(await ftsSegments(db)).toBe(1);
      expect(await store.mergeIndex()).toBe(0);
      expect(await ftsHits(db, 'okapis')).toBe(9);
      expect(await ftsHits(db, 'page')).toBe(9);
    } finally {
      db.$client.close();
    }
  });

  it('leaves the segments when asked to, or when the ingest is a small part of the corpus', async () => {
    const { db, store } = await openStore(join(dir.path, 'unmerged'));
    try {
      const bulk = join(dir.path, 'bulk');
      writeTree(bulk, pages(9, 'quokkas'));
      const r = await ingestInputs({ store, log }, [bulk], {
        source: 'bulk',
        batchSize: 3,
        mergeIndex: false,
      });
      expect(r.indexMergeSteps).toBe(0);
      expect(await ftsSegments(db)).toBe(3);
      expect(await store.mergeIndex()).toBeGreaterThan(0);
      expect(await ftsSegments(db)).toBe(1);
      expect(await store.mergeIndex()).toBe(0);
      // Two chunks in two transactions beside nine: under a quarter of the table.
      const small = join(dir.path, 'small');
      writeTree(small, pages(2, 'dugongs'));
      const s = await ingestInputs({ store, log }, [small], { source: 'small', batchSize: 1 });
      expect(s).toMatchObject({ added: 2, indexMergeSteps: 0 });
      expect(await ftsSegments(db)).toBe(3);
      expect(await store.mergeIndex()).toBeGreaterThan(0);
      expect(await ftsHits(db, 'quokkas')).toBe(9);
      expect(await ftsHits(db, 'dugongs')).toBe(2);
    } finally {
      db.$client.close();
    }
  });
});

describe('lore docs ingest (CLI)', () => {
  const dir = tempDir();
  const config = testConfig(join(dir.path, 'data'));
  afterAll(() => dir.cleanup());

  it('prints a summary line, and a progress bar only on a terminal', async () => {
    const root = join(dir.path, 'cli-docs');
    writeTree(root, {
      'a.md': '# A\n\nAlpha.',
      'b/b.md': '# B\n\nBeta.',
      'c.htm': '<h1>C</h1><p>Gamma.</p>',
    });
    const out = capture();
    const err = capture();
    const code = await runDocsCli(['docs', 'ingest', root, '--source', 'cli'], {
      config,
      stdout: out.stream,
      stderr: err.stream,
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(out.text()).toMatch(
      /^Ingested "cli": 3 added, 0 updated, 0 removed, 0 unchanged; 3 chunks in \d+\.\d\d s/,
    );
    expect(err.text()).toBe('');

    writeFileSync(join(root, 'a.md'), '# A\n\nAlpha, revised.');
    const tty = capture();
    const out2 = capture();
    expect(
      await runDocsCli(['ingest', root, '--source', 'cli'], {
        config,
        stdout: out2.stream,
        stderr: tty.stream,
        isTTY: true,
      }),
    ).toBe(0);
    expect(out2.text()).toContain('0 added, 1 updated, 0 removed, 2 unchanged');
    expect(tty.text()).toMatch(/documents/);

    // The default source is the folder's name (the documents move to it); names start with it.
    const out3 = capture();
    expect(
      await runDocsCli(['ingest', root], {
        config,
        stdout: out3.stream,
        stderr: capture().stream,
        isTTY: false,
      }),
    ).toBe(0);
    expect(out3.text()).toContain('Ingested "cli-docs": 0 added, 3 updated, 0 removed, 0 unchanged');
    const { db } = await openStore(join(dir.path, 'data'));
    expect(await names(db)).toContain('documents/local/cli-docs/b/b');
    db.$client.close();
  });

  it('answers usage errors with exit code 2 and failures with 1', async () => {
    const io = () => ({ config, stdout: capture().stream, stderr: capture().stream, isTTY: false });
    expect(await runDocsCli([], io())).toBe(2);
    expect(await runDocsCli(['frobnicate'], io())).toBe(2);
    expect(await runDocsCli(['ingest'], io())).toBe(2);
    expect(await runDocsCli(['ingest', 'x', '--bogus'], io())).toBe(2);
    expect(await runDocsCli(['ingest', '--help'], io())).toBe(0);
    const err = capture();
    expect(
      await runDocsCli(['ingest', join(dir.path, 'missing')], {
        config,
        stdout: capture().stream,
        stderr: err.stream,
        isTTY: false,
      }),
    ).toBe(1);
    expect(err.text()).toMatch(/no such file/i);
    const bad = capture();
    expect(
      await runDocsCli(['ingest', dir.path, '--base-uri', 'ftp://x/'], {
        config,
        stdout: capture().stream,
        stderr: bad.stream,
        isTTY: false,
      }),
    ).toBe(1);
    expect(bad.text()).toMatch(/--base-uri/);
  });

  it('leaves a new database with its index version recorded, so a service start rewrites nothing', async () => {
    const fresh = testConfig(join(dir.path, 'fresh-data'));
    const root = join(dir.path, 'fresh-docs');
    writeTree(root, { 'a.md': '# Routers\n\nWhich router is the fastest.', 'b.md': '# B\n\nBeta.' });
    const io = { config: fresh, stdout: capture().stream, stderr: capture().stream, isTTY: false };
    expect(await runDocsCli(['ingest', root, '--source', 'cli'], io)).toBe(0);
    const db = await openDatabase({
      ...databaseFor(fresh, 'docs'),
      schema: tables,
      migrationsFolder: migrationsFolder(new URL('../src/x.ts', import.meta.url).href),
    });
    try {
      const version = await db.$client.execute(
        `select version from lore_index_versions where name = 'chunks_fts'`,
      );
      expect(version.rows.length).toBe(1);
      // What the service's start runs: the rows the CLI wrote are current.
      expect(await new DocsStore(db).reindex()).toBe(0);
    } finally {
      db.$client.close();
    }
  });
});

describe('ingesting from a web server', () => {
  const requests: Array<{ path: string; ua: string | undefined }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let site: Awaited<ReturnType<typeof listen>>;
  const page = (title: string, body: string, links: string[] = []) =>
    `<html><head><title>${title}</title></head><body><nav>Menu</nav><main><h1>${title}</h1><p>${body}</p>${links
      .map((l) => `<a href="${l}">${l}</a>`)
      .join(' ')}</main></body></html>`;

  beforeAll(async () => {
    site = await listen(async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push({ path, ua: req.headers['user-agent'] });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 15));
      inFlight--;
      const html = (s: string) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(s);
      };
      const routes: Record<string, () => void> = {
        '/robots.txt': () => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('User-agent: *\nDisallow: /docs/private/\n');
        },
        '/docs/': () =>
          html(
            page('Docs home', 'Start here to learn about the flux capacitor.', [
              '/docs/setup',
              'guide.html',
              '/docs/private/keys',
              'https://elsewhere.example.com/docs/x',
              '/docs/raw.md',
              '/docs/logo.png',
              '/blog/outside-scope',
              '#top',
            ]),
          ),
        '/docs/setup': () =>
          html(page('Setup', 'Connect the flux capacitor to 1.21 gigawatts.', ['/docs/', '/docs/deep/more'])),
        '/docs/guide.html': () => html(page('Guide', 'Drive at 88 miles per hour.')),
        '/docs/deep/more': () => html(page('More', 'Deeper pages are followed too.')),
        '/docs/raw.md': () => {
          res.writeHead(200, { 'content-type': 'text/markdown' });
          res.end('# Raw Markdown\n\nServed as Markdown about plutonium.');
        },
        '/docs/private/keys': () => html(page('Secret', 'Never fetched.')),
        '/sitemap.xml': () => {
          res.writeHead(200, { 'content-type': 'application/xml' });
          res.end(
            `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc>${site.url}/docs/setup</loc></url>
              <url><loc>${site.url}/docs/guide.html</loc></url>
              <url><loc>${site.url}/docs/private/keys</loc></url>
              <url><loc>https://elsewhere.example.com/page</loc></url>
            </urlset>`,
          );
        },
      };
      const route = routes[path];
      if (route) route();
      else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    });
  });
  afterAll(() => site.close());
  afterEach(() => {
    requests.length = 0;
    maxInFlight = 0;
  });

  it('follows links within the folder, politely: robots.txt, one host, a concurrency limit, a named User-Agent', async () => {
    const result = await crawl(`${site.url}/docs/`, { concurrency: 2, allowPrivate: true });
    const host = new URL(site.url).host;
    expect(result.documents.map((d) => d.name).sort()).toEqual(
      [
        `documents/${host}/docs`,
        `documents/${host}/docs/deep/more`,
        `documents/${host}/docs/guide`,
        `documents/${host}/docs/raw`,
        `documents/${host}/docs/setup`,
      ].sort(),
    );
    const paths = requests.map((r) => r.path);
    expect(paths[0]).toBe('/robots.txt');
    expect(paths).not.toContain('/docs/private/keys');
    expect(paths).not.toContain('/blog/outside-scope');
    expect(paths).not.toContain('/docs/logo.png');
    expect(requests.every((r) => r.ua?.startsWith('LoreBot/'))).toBe(true);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { url: `${site.url}/docs/private/keys`, reason: 'disallowed by robots.txt' },
        expect.objectContaining({ url: 'https://elsewhere.example.com/docs/x' }),
      ]),
    );
  });

  it('reads a sitemap, and ingests the pages as Markdown documents', async () => {
    const dir = tempDir();
    const { db, store } = await openStore(dir.path);
    try {
      const summary = await ingestInputs({ store, log }, [`${site.url}/sitemap.xml`], {
        crawl: { concurrency: 3, allowPrivate: true },
      });
      const host = new URL(site.url).host;
      expect(summary).toMatchObject({ source: host, added: 2, updated: 0, removed: 0, unchanged: 0 });
      expect(summary.skipped.map((s) => s.reason)).toEqual(
        expect.arrayContaining(['disallowed by robots.txt', 'another host (listed in the sitemap)']),
      );
      expect(requests.map((r) => r.path)).not.toContain('/docs/private/keys');
      const setup = (await store.documents([`documents/${host}/docs/setup`])).get(
        `documents/${host}/docs/setup`,
      )!;
      expect(setup).toMatchObject({ title: 'Setup', uri: `${site.url}/docs/setup`, dataSource: host });
      expect(setup.content).toContain('# Setup');
      expect(setup.content).toContain('Connect the flux capacitor to 1.21 gigawatts.');
      expect(setup.content).not.toContain('Menu');
    } finally {
      db.$client.close();
      dir.cleanup();
    }
  });

  it('is what `lore docs ingest <URL>` runs', async () => {
    const dir = tempDir();
    const config = testConfig(dir.path, { LORE_CRAWL_ALLOW_PRIVATE: 'true' });
    const out = capture();
    const code = await runDocsCli(['ingest', `${site.url}/docs/`, '--source', 'web', '--concurrency', '2'], {
      config,
      stdout: out.stream,
      stderr: capture().stream,
      isTTY: false,
    });
    expect(code).toBe(0);
    expect(out.text()).toMatch(/Ingested "web": 5 added, 0 updated, 0 removed, 0 unchanged; 5 chunks/);
    expect(out.text()).toMatch(/skipped/);
    dir.cleanup();
  });
});

describe("Lore's own documentation", () => {
  it('is ingested on the first call that reads the corpus, as the corpus `lore`, idempotently, unless turned off', async () => {
    const dir = tempDir();
    writeTree(dir.path, {
      'README.md': '# Lore\n\nA knowledge network for agents.',
      'packages/kit/README.md': '# Kit\n\nThe runtime.',
    });
    const ownDocs = {
      root: dir.path,
      files: ['README.md', 'packages/kit/README.md', 'packages/gone/README.md'],
    };
    const dataDir = join(dir.path, 'data');
    const events: EventEnvelope[] = [];
    const bus = new MemoryBus();
    await bus.listen(DocsCorpusIngested.subject, (e) => events.push(e));

    // Started and stopped with no call: nothing was ingested (stopping waits for a running ingest).
    const idle = await startDocs({ LORE_DATA_DIR: dataDir }, { ownDocs });
    await idle.close();
    const store = new DocsStore((await openStore(dataDir)).db);
    expect((await store.counts()).documents).toBe(0);

    const first = await startDocs({ LORE_DATA_DIR: dataDir }, { ownDocs }, bus);
    const reader = await first.client('reader');
    const found = await ok<{ results: Array<{ document: { title: string } }> }>(reader, 'search_documents', {
      query: 'knowledge network for agents',
      corpus: 'lore',
    });
    expect(found.data.results[0]?.document.title).toBe('Lore');
    expect((await store.counts()).documents).toBe(2);
    const docs = await store.documents([
      'documents/lore.local/README',
      'documents/lore.local/packages/kit/README',
    ]);
    expect([...docs.keys()]).toHaveLength(2);
    expect(docs.get('documents/lore.local/README')).toMatchObject({
      dataSource: 'lore',
      uri: 'https://lore.local/README',
      title: 'Lore',
    });
    const t1 = docs.get('documents/lore.local/README')!.updateTime;
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]!.payload).toMatchObject({ source: 'lore', added: 2, removed: 0 });
    await first.close();

    const second = await startDocs({ LORE_DATA_DIR: dataDir }, { ownDocs });
    await ok(await second.client('reader2'), 'docs_corpora', {});
    await second.close();
    const again = await store.documents(['documents/lore.local/README']);
    expect(again.get('documents/lore.local/README')!.updateTime).toBe(t1);

    const off = tempDir();
    const third = await startDocs({ LORE_DATA_DIR: off.path, LORE_INGEST_OWN_DOCS: 'false' }, { ownDocs });
    await ok(await third.client('reader3'), 'search_documents', { query: 'knowledge network' });
    const offStore = new DocsStore((await openStore(off.path)).db);
    expect((await offStore.counts()).documents).toBe(0);
    await third.close();
    off.cleanup();
    dir.cleanup();
  });
});

describe('ingesting hostile pages', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('refuses pages nested thousands deep by their nesting, in a parser thread, and ingests the rest', async () => {
    const bombs = join(dir.path, 'bombs');
    const { db, store } = await openStore(join(dir.path, 'data'));
    writeTree(bombs, {
      'ok.md': '# Fine\n\nAn ordinary page about herons.',
      'lists.md': Array.from({ length: 900 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n'),
      'quotes.md': `${'>'.repeat(5_000)} deep\n`.repeat(100),
      'divs.html': `<html><body>${'<div>'.repeat(40_000)}deep${'</div>'.repeat(40_000)}</body></html>`,
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const r = await ingestInputs({ store, log }, [bombs], { source: 'bombs' });
    delay.disable();
    expect(r.added).toBe(1);
    const reasons = Object.fromEntries(r.failed.map((f) => [f.origin.split('/').pop(), f.reason]));
    expect(reasons['lists.md']).toMatch(
      /refused: the Markdown nests lists or block quotes more than 256 deep \(nesting limit\)/,
    );
    expect(reasons['quotes.md']).toMatch(/\(nesting limit\)/);
    expect(reasons['divs.html']).toMatch(/\(nesting limit\)/);
    // The splitting ran off the event loop: no single stall of the length it takes.
    expect(delay.max / 1e6).toBeLessThan(1_000);
    expect(await ftsHits(db, 'heron')).toBe(1);
    db.$client.close();
  });

  it('run alone with LORE_DOCS_OWN_ROOT (what `pnpm dev` sets), it serves the same corpus `lore` from that checkout', async () => {
    const dir = tempDir();
    writeTree(dir.path, {
      'README.md': '# Lore\n\nA knowledge network for agents.',
      'BENCHMARKS.md': '# Benchmarks\n\nStarting takes seconds.',
      'packages/kit/README.md': '# Kit\n\nThe runtime.',
      'packages/kit/src/index.ts': 'export {};',
    });
    const docs = await startDocs({ LORE_DATA_DIR: join(dir.path, 'data'), LORE_DOCS_OWN_ROOT: dir.path });
    try {
      const corpora = await ok<{ corpora: Array<{ source: string; documents: number }> }>(
        await docs.client('dev_reader'),
        'docs_corpora',
        {},
      );
      // The READMEs and BENCHMARKS.md, as the all-in-one lists them from its own checkout.
      expect(corpora.data.corpora).toEqual([expect.objectContaining({ source: 'lore', documents: 3 })]);
    } finally {
      await docs.close();
      dir.cleanup();
    }
  });
});
