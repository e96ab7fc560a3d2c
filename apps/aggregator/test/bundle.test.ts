/**
 * The bundled bins (scripts/bundle.mjs: what `pnpm start`, `pnpm lore` and the image run),
 * started as processes on empty data directories and called with a real MCP client through the
 * paths that find a file beside their module: migrations, the knowledge ingest's parser
 * (Markdown, HTML, PDF), the crawler's lazy chunk, the background ingest of Lore's own docs. Then
 * the bundle's text itself: every external and every original-file URL it names exists, and no
 * dependency is left reading `import.meta.url` or `__dirname` of the bundle.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { type Client, connectClient, makePdf, ok } from '@lore/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Spawned, spawnNode } from './helpers.js';

const BINS = [
  'apps/aggregator',
  ...['approvals', 'dens', 'dms', 'docs', 'knowledge', 'queries', 'showcase', 'users'].map(
    (s) => `packages/${s}`,
  ),
];

/** Starts `node --optimize-for-size <bundle>` as the image and `pnpm start` do. */
function startBundle(
  bundle: string,
  args: string[],
  env: Record<string, string>,
  urlPattern: RegExp,
): Promise<Spawned> {
  return spawnNode(
    join(ROOT, bundle),
    args,
    { NATS_URL: '', LORE_PORT: '0', LORE_RATE_LIMITS: 'false', MALLOC_ARENA_MAX: '2', ...env },
    // Not the checkout: nothing may depend on the working directory.
    { nodeArgs: ['--optimize-for-size'], urlPattern, timeoutMs: 90_000, cwd: env.LORE_DATA_DIR },
  );
}

/** A command's exit code and output, without blocking this process's event loop. */
function run(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, opts, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const dataRoot = join(ROOT, 'data');
mkdirSync(dataRoot, { recursive: true });
const work = mkdtempSync(join(dataRoot, 'bundle-test-'));

beforeAll(() => {
  // As `pnpm start` does: build and bundle when stale.
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/built.mjs')], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the bundled all-in-one (apps/aggregator/dist/bundle/main.js start)', () => {
  let lore: Spawned;
  let owner: Client;
  let site: Server;
  let siteUrl: string;
  const dataDir = join(work, 'aio');

  beforeAll(async () => {
    mkdirSync(dataDir);
    lore = await startBundle(
      'apps/aggregator/dist/bundle/main.js',
      ['start'],
      {
        LORE_DATA_DIR: dataDir,
        LORE_DOCS_OPERATORS: 'owner',
        LORE_LOG_LEVEL: 'info',
        // As `pnpm start` runs by default (the slow tier turns the model off for everything else).
        LORE_EMBEDDINGS: 'local',
      },
      /Lore is running at (\S+)/,
    );
    const url = lore.url;
    owner = await connectClient(undefined, {
      url,
      key: readFileSync(join(dataDir, 'owner.key'), 'utf8').trim(),
    });
    // A two-page site for the crawler (its HTML, robots.txt and sitemap parsers are a lazy chunk).
    site = createServer((req, res) => {
      if (req.url === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
      if (req.url === '/') {
        res.setHeader('content-type', 'text/html');
        return void res.end(
          '<html><head><title>Kilns</title></head><body><h1>Kilns</h1><p>A kiln fires stoneware at 1280 degrees.</p><a href="/glaze">Glazes</a></body></html>',
        );
      }
      if (req.url === '/glaze') {
        res.setHeader('content-type', 'text/html');
        return void res.end(
          '<html><head><title>Glazes</title></head><body><h1>Glazes</h1><p>Celadon glazes turn green in reduction firing.</p></body></html>',
        );
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  }, 120_000);
  afterAll(async () => {
    await owner?.close();
    await lore?.kill('SIGTERM');
    site?.close();
  });

  it('ran every migration on the empty data directory and prints the bundle as its stdio command', async () => {
    for (const db of ['users', 'knowledge', 'dens', 'dms', 'queries', 'approvals', 'showcase', 'docs'])
      expect(existsSync(join(dataDir, `${db}.db`))).toBe(true);
    const me = await ok<{ agent: { username: string } }>(owner, 'agent_profile', { username: 'owner' });
    expect(me.data.agent.username).toBe('owner');
    expect(lore.output()).toContain(join(ROOT, 'apps/aggregator/dist/bundle/main.js'));
  });

  it('finds the local embedding model from the bundle and loads it (not words only)', async () => {
    const embeddings = async () => {
      const r = (await (await fetch(new URL('/readyz', lore.url))).json()) as {
        details?: Record<string, string>;
      };
      return r.details?.['knowledge.embeddings'] ?? '';
    };
    expect(await embeddings()).not.toMatch(/^unavailable/);
    // The background work at start (Lore's own docs, the articles) asks the model for vectors.
    await expect.poll(embeddings, { timeout: 90_000, interval: 500 }).toMatch(/^ready \(all-MiniLM-L6-v2/);
    expect(lore.output()).not.toContain('local embedding model unavailable');
  }, 120_000);

  it("serves the console's own assets, found beside the aggregator's dist/", async () => {
    const base = new URL(lore.url);
    for (const name of ['console.css', 'console.js']) {
      const r = await fetch(new URL(`/console/assets/${name}`, base));
      expect(r.status, name).toBe(200);
      expect(await r.text()).toBe(readFileSync(join(ROOT, 'apps/aggregator/assets', name), 'utf8'));
    }
  });

  it("ingests Lore's own documentation in the background (parser, front matter)", async () => {
    type Corpora = { corpora: { source: string; documents: number }[] };
    await expect
      .poll(
        async () =>
          (await ok<Corpora>(owner, 'docs_corpora', {})).data.corpora.find((c) => c.source === 'lore')
            ?.documents ?? 0,
        { timeout: 120_000, interval: 500 },
      )
      .toBeGreaterThan(5);
    const r = await ok<{ results: { document: { title?: string }; content: string }[] }>(
      owner,
      'search_documents',
      {
        query: 'pnpm bench memory',
      },
    );
    expect(r.data.results.length).toBeGreaterThan(0);
  }, 150_000);

  it('converts HTML (turndown, loaded on first use) and PDF (the parser) into searchable knowledge', async () => {
    const html = await ok<{ format: string }>(owner, 'updateKnowledgeSources', {
      file_name: 'cells.html',
      file_content:
        '<html><head><title>Cells</title><script>var tracker = 1;</script></head><body><h1>Cells</h1><h2>Organelles</h2><p>The mitochondria produce ATP for the cell.</p></body></html>',
    });
    expect(html.data.format).toBe('html');
    const pdf = await ok<{ format: string; pages: number }>(owner, 'updateKnowledgeSources', {
      file_name: 'topological.pdf',
      file_content: makePdf([['Majorana zero modes are candidate topological qubits.']]).toString('base64'),
    });
    expect(pdf.data).toMatchObject({ format: 'pdf', pages: 1 });
    type Searched = { passages: { source: string; headingPath: string[] }[] };
    expect(
      (await ok<Searched>(owner, 'searchKnowledge', { query: 'mitochondria ATP' })).data.passages[0],
    ).toMatchObject({ source: 'cells.html', headingPath: ['Cells', 'Organelles'] });
    expect(
      (await ok<Searched>(owner, 'searchKnowledge', { query: 'Majorana qubits' })).data.passages[0]?.source,
    ).toBe('topological.pdf');
  }, 60_000);

  it('`lore docs ingest <url>` crawls a site (the crawler chunk and its external parsers)', async () => {
    // The site is on loopback, crawled with LORE_CRAWL_ALLOW_PRIVATE. Not spawnSync: the site is
    // served from this process.
    const r = await run(
      process.execPath,
      [join(ROOT, 'apps/aggregator/dist/bundle/main.js'), 'docs', 'ingest', siteUrl, '--source', 'pottery'],
      {
        cwd: work,
        env: {
          ...process.env,
          NATS_URL: '',
          LORE_DATA_DIR: join(work, 'crawl'),
          LORE_LOG_LEVEL: 'warn',
          LORE_CRAWL_ALLOW_PRIVATE: 'true',
        },
        timeout: 60_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout, r.stderr).toMatch(/Ingested "pottery": 2 added/);
  }, 60_000);
});

describe('a bundled service alone (packages/users/dist/bundle/main.js, as the image runs it)', () => {
  it('migrates an empty data directory and answers tools', async () => {
    const dataDir = join(work, 'users');
    mkdirSync(dataDir);
    const users = await startBundle(
      'packages/users/dist/bundle/main.js',
      [],
      { LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'info' },
      /"url":"(http[^"]+)"/,
    );
    try {
      const url = users.url;
      const anon = await connectClient(undefined, { url });
      const reg = await ok<{ apiKey: string }>(anon, 'agent_register', {
        username: 'potter',
        email: 'potter@example.com',
        displayName: 'Potter',
      });
      await anon.close();
      const potter = await connectClient(undefined, { url, key: reg.data.apiKey });
      const me = await ok<{ agent: { username: string } }>(potter, 'agent_profile', { username: 'potter' });
      expect(me.data.agent.username).toBe('potter');
      await potter.close();
      expect(existsSync(join(dataDir, 'users.db'))).toBe(true);
    } finally {
      await users.kill('SIGTERM');
    }
  }, 120_000);
});

describe('the bundles name only files that exist, and no dependency reads the bundle as its own file', () => {
  for (const bin of BINS) {
    it(bin, () => {
      const dir = join(ROOT, bin, 'dist/bundle');
      const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
      expect(files).toContain('main.js');
      for (const file of files) {
        const text = readFileSync(join(dir, file), 'utf8');
        // Two-byte source strings would double what V8 keeps of this file.
        expect(/[^\x00-\x7f]/.test(text), `${file} is not ASCII`).toBe(false);
        // Externals by a path relative to the bundle; chunks beside it.
        const specs = [...text.matchAll(/(?:from|import)\s*\(?"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1]!);
        for (const spec of specs)
          expect(existsSync(resolve(dir, spec)), `${file} imports ${spec}`).toBe(true);
        // Every module's own URL, relative to the bundle: its original file.
        const own = [...text.matchAll(/new URL\("([^"]+)",__loreBundleUrl\)/g)].map((m) => m[1]!);
        for (const rel of own) expect(existsSync(resolve(dir, rel)), `${file} names ${rel}`).toBe(true);
        // `import.meta.url` only where the banner and the entry use it: the banner's two, and
        // the entry's own (the stdio launcher names the file that runs).
        const meta = text.match(/import\.meta\.(url|dirname|filename)/g) ?? [];
        expect(meta.length, `${file}: ${meta.join(', ')}`).toBeLessThanOrEqual(file === 'main.js' ? 3 : 2);
        // A CommonJS dependency's __dirname and __filename are defined from its original file
        // (module-scope names, renamed by the minifier): none is left to the ES module's scope.
        expect(text).not.toMatch(/\b__(dirname|filename)\b/);
      }
    });
  }
});
