import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, call, describeConformance, makePdf, ok } from '@lore/kit/testing';
import { KnowledgeRpc, KnowledgeSourceAdded, KnowledgeSourceRemoved, statsRpc } from '@lore/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Env, QUANTUM_TEXT, SOURDOUGH_TEXT, startEnv } from './helpers.js';

/** Classification runs in the background: on a busy machine it takes more than vi.waitFor's default second. */
const WAIT = { timeout: 30_000, interval: 50 };

type Passage = {
  id: string;
  source: string;
  text: string;
  headingPath: string[];
  score: number;
  relevant: boolean;
};
type Added = {
  source: string;
  format: string;
  chunks: number;
  keywords: string[];
  replaced: boolean;
  pages: number | null;
  vectors: number;
};
type Listed = {
  sources: Array<{
    name: string;
    format: string;
    chunks: number;
    keywords: string[];
    addedAt: string;
    updatedAt: string;
  }>;
  total: number;
  chunks: number;
};
type Searched = {
  terms: string[];
  strategy: string;
  passages: Array<{
    source: string;
    headingPath: string[];
    excerpt: string;
    relevant: boolean;
    chunk: number;
  }>;
};

describe('knowledge sources over MCP', () => {
  const files = mkdtempSync(join(tmpdir(), 'lore-knowledge-files-'));
  const root = join(files, 'allowed');
  const outside = join(files, 'outside');
  let t: Env;
  let bob: Client;
  let carol: Client;
  let bobId: string;
  let carolId: string;

  const retrieve = (agentId: string, query: string, limit = 5) =>
    t.env.deps.bus.request(KnowledgeRpc.retrieve.subject, { agentId, query, limit }) as Promise<{
      passages: Passage[];
    }>;

  beforeAll(async () => {
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(
      join(root, 'sub', 'notes.md'),
      '# Lasers\n\n## Coherence\n\nLaser light is coherent and monochromatic; photons share phase.\n',
    );
    writeFileSync(join(outside, 'secret.txt'), 'The launch codes are hidden in the photonic vault.');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'));
    symlinkSync(outside, join(root, 'escape-dir'));
    symlinkSync(join(root, 'sub', 'notes.md'), join(root, 'inner-link.md'));
    writeFileSync(
      join(root, 'research.pdf'),
      makePdf([
        ['Photonic quantum processors route single photons', 'through waveguide interferometers.'],
        ['Boson sampling was the first photonic advantage claim.'],
      ]),
    );
    writeFileSync(join(root, 'blob.bin'), Buffer.from([0x00, 0x01, 0x02, 0x68, 0x69]));
    execFileSync('mkfifo', [join(root, 'pipe.md')]);
    writeFileSync(join(root, 'huge.txt'), '');
    truncateSync(join(root, 'huge.txt'), 21 * 1024 * 1024);
    t = await startEnv({
      LORE_KNOWLEDGE_ROOTS: `${root}, /nonexistent-root`,
      LORE_MAX_BODY_BYTES: String(4 * 1024 * 1024),
    });
    ({ client: bob, id: bobId } = await t.register('bob'));
    ({ client: carol, id: carolId } = await t.register('carol'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(files, { recursive: true, force: true });
  });

  describeConformance('knowledge', {
    service: () => t.knowledge,
    tools: [
      'article_get',
      'article_publish',
      'article_search',
      'knowledgeAppUpload',
      'listKnowledgeSources',
      'removeKnowledgeSource',
      'searchKnowledge',
      'setKnowledgeSourceSharing',
      'updateKnowledgeSources',
    ],
    args: { updateKnowledgeSources: { file_name: 'a.txt', file_content: 'x' } },
  });

  it('describes each tool, updateKnowledgeSources in the words of its contract', async () => {
    const { tools } = await bob.listTools();
    for (const x of tools) expect(x.description?.length, x.name).toBeGreaterThan(40);
    const update = tools.find((x) => x.name === 'updateKnowledgeSources');
    expect(update?.description).toContain(
      'Updates knowledge sources by adding new content to the RAG database.',
    );
    expect(JSON.stringify(update?.inputSchema)).toContain('Path to an existing file');
  });

  it("adds the mission's example and says so in the mission's words, publishing KnowledgeSourceAdded with keywords", async () => {
    const r = await ok<Added>(bob, 'updateKnowledgeSources', {
      file_name: 'quantum_computing.txt',
      file_content: QUANTUM_TEXT,
    });
    expect(r.text.split('\n')[0]).toBe(
      "RAG resource 'quantum_computing.txt' added successfully and vector database refreshed.",
    );
    expect(r.data).toMatchObject({
      source: 'quantum_computing.txt',
      format: 'text',
      replaced: false,
      pages: null,
      vectors: 0,
    });
    expect(r.data.chunks).toBeGreaterThanOrEqual(1);
    expect(r.data.keywords).toContain('quantum');
    // Announced at once without extracted words, then again once its passages are classified.
    const announced = () => t.events.filter((e) => e.subject === KnowledgeSourceAdded.subject);
    await vi.waitFor(() => expect(announced()).toHaveLength(2), WAIT);
    const [first, classified] = announced();
    const payload = {
      agentId: bobId,
      handle: 'bob',
      source: 'quantum_computing.txt',
      chunks: r.data.chunks,
      sharing: 'auto',
      summary: '',
    };
    expect(first!.payload).toEqual({ ...payload, keywords: [] });
    expect(classified!.payload).toMatchObject(payload);
    expect((classified!.payload as { keywords: string[] }).keywords).toContain('quantum');
  });

  it('indexes Markdown by heading and returns the heading path', async () => {
    const md =
      '# Optics\n\nIntro to optics.\n\n## Lenses\n\nA convex lens converges parallel rays to a focal point.\n\n## Mirrors\n\nConcave mirrors also focus light.';
    await ok(bob, 'updateKnowledgeSources', { file_name: 'optics.md', file_content: md });
    const r = await ok<Searched>(bob, 'searchKnowledge', { query: 'convex lens focal point' });
    expect(r.data.passages[0]).toMatchObject({
      source: 'optics.md',
      headingPath: ['Optics', 'Lenses'],
      relevant: true,
    });
    expect(r.data.passages[0]!.excerpt).toContain('convex lens');
    expect(r.text).toContain('optics.md › Optics › Lenses');
  });

  it('converts HTML to Markdown and drops scripts', async () => {
    const html =
      '<html><head><title>Cells</title><script>var mitochondriaTracker = 1;</script></head><body><h1>Cells</h1><h2>Organelles</h2><p>The mitochondria produce ATP for the cell.</p></body></html>';
    const r = await ok<Added>(bob, 'updateKnowledgeSources', { file_name: 'cells.html', file_content: html });
    expect(r.data.format).toBe('html');
    const s = await ok<Searched>(bob, 'searchKnowledge', { query: 'mitochondria ATP' });
    expect(s.data.passages[0]).toMatchObject({ source: 'cells.html', headingPath: ['Cells', 'Organelles'] });
    expect(
      (await ok<Searched>(bob, 'searchKnowledge', { query: 'mitochondriaTracker' })).data.passages,
    ).toEqual([]);
  });

  it('ingests a PDF sent as base64 and makes it searchable', async () => {
    const pdf = makePdf([
      ['Majorana zero modes are candidate topological qubits.', 'Braiding them implements gates.'],
    ]);
    const r = await ok<Added>(bob, 'updateKnowledgeSources', {
      file_name: 'topological.pdf',
      file_content: pdf.toString('base64'),
    });
    expect(r.data).toMatchObject({ format: 'pdf', pages: 1 });
    const s = await ok<Searched>(bob, 'searchKnowledge', { query: 'Majorana braiding' });
    expect(s.data.passages[0]).toMatchObject({ source: 'topological.pdf', relevant: true });
  });

  it('ingests a PDF from an allowed file_path (two pages) and makes it searchable', async () => {
    const r = await ok<Added>(bob, 'updateKnowledgeSources', { file_path: join(root, 'research.pdf') });
    expect(r.text).toContain("RAG resource 'research.pdf' added successfully");
    expect(r.data).toMatchObject({ source: 'research.pdf', format: 'pdf', pages: 2 });
    const s = await ok<Searched>(bob, 'searchKnowledge', { query: 'boson sampling photonic' });
    expect(s.data.passages[0]?.source).toBe('research.pdf');
  });

  it('reads Markdown from file_path, also through a symlink that stays inside the root', async () => {
    expect(
      (await ok<Added>(bob, 'updateKnowledgeSources', { file_path: join(root, 'sub', 'notes.md') })).data
        .format,
    ).toBe('markdown');
    expect(
      (await ok<Added>(bob, 'updateKnowledgeSources', { file_path: join(root, 'inner-link.md') })).data
        .source,
    ).toBe('inner-link.md');
  });

  it.each([
    ['a file outside the roots', () => join(outside, 'secret.txt')],
    ['/etc/passwd', () => '/etc/passwd'],
    ['a `..` climb out of the root', () => `${root}/sub/../../outside/secret.txt`],
    ['a symlink in the root pointing outside', () => join(root, 'escape.txt')],
    ['a file under a symlinked directory pointing outside', () => join(root, 'escape-dir', 'secret.txt')],
    ['a missing file outside the roots', () => join(outside, 'nope.txt')],
    ['a root-like prefix that is another directory', () => `${root}-evil/x.txt`],
  ])('refuses %s with 403', async (_label, path) => {
    const r = await call(bob, 'updateKnowledgeSources', { file_path: path() });
    expect(r.error?.code).toBe(403);
    expect(r.error?.data?.field).toBe('file_path');
    expect(r.text).not.toContain('launch codes');
  });

  it('refuses a FIFO inside a root with 400 at once, and file reads keep working after many tries', async () => {
    const tries = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(bob, 'updateKnowledgeSources', { file_path: join(root, 'pipe.md') }),
      ),
    );
    for (const r of tries) {
      expect(r.error).toMatchObject({
        code: 400,
        data: { field: 'file_path', constraint: 'a regular file' },
      });
      expect(r.text).toMatch(/FIFO/);
    }
    const after = await ok<Added>(bob, 'updateKnowledgeSources', {
      file_path: join(root, 'sub', 'notes.md'),
    });
    expect(after.data.chunks).toBeGreaterThan(0);
  });

  it('answers 404 for a missing file inside a root, 400 for a relative path, a directory or a file too large, 415 for a binary file', async () => {
    expect(
      (await call(bob, 'updateKnowledgeSources', { file_path: join(root, 'missing.txt') })).error?.code,
    ).toBe(404);
    expect((await call(bob, 'updateKnowledgeSources', { file_path: 'sub/notes.md' })).error).toMatchObject({
      code: 400,
      data: { field: 'file_path' },
    });
    expect((await call(bob, 'updateKnowledgeSources', { file_path: join(root, 'sub') })).error).toMatchObject(
      { code: 400, data: { field: 'file_path' } },
    );
    expect(
      (await call(bob, 'updateKnowledgeSources', { file_path: join(root, 'blob.bin') })).error,
    ).toMatchObject({
      code: 415,
      data: { field: 'file_path', accepted: expect.arrayContaining(['PDF (.pdf)']) },
    });
    const huge = await call(bob, 'updateKnowledgeSources', { file_path: join(root, 'huge.txt') });
    expect(huge.error).toMatchObject({
      code: 400,
      data: { field: 'file_path', constraint: 'at most 20 MiB' },
    });
  });

  it('refuses an executable, an image or binary content as a text source with a 415 naming the accepted types', async () => {
    const exe = await call(bob, 'updateKnowledgeSources', {
      file_name: 'bad.exe',
      file_content: 'MZ this is not text',
    });
    expect(exe.error).toMatchObject({
      code: 415,
      message:
        "'bad.exe' is not a text file: a knowledge source can be plain text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf).",
      data: {
        field: 'file_name',
        accepted: ['plain text (.txt)', 'Markdown (.md)', 'HTML (.html)', 'PDF (.pdf)'],
      },
    });
    expect(
      (await call(bob, 'updateKnowledgeSources', { file_name: 'photo.PNG', file_content: 'x' })).error?.code,
    ).toBe(415);
    // Bytes that are not UTF-8 decode as replacement characters: a binary read as text.
    const garbled = await call(bob, 'updateKnowledgeSources', {
      file_name: 'notes.txt',
      file_content: `MZ${'\uFFFD'.repeat(200)}`,
    });
    expect(garbled.error).toMatchObject({ code: 415, data: { field: 'file_content' } });
    expect(garbled.error?.message).toContain('(its content is binary)');
    const names = (
      await ok<{ sources: Array<{ name: string }> }>(bob, 'listKnowledgeSources')
    ).data.sources.map((s) => s.name);
    expect(names).not.toContain('bad.exe');
    expect(names).not.toContain('notes.txt');
  });

  it.each([
    [{}, 'file_path'],
    [{ file_name: 'a.txt' }, 'file_content'],
    [{ file_content: 'some text' }, 'file_name'],
    [{ file_path: '/x/y.txt', file_content: 'x' }, 'file_content'],
    [{ file_path: '/x/y.txt', file_name: 'y.txt' }, 'file_name'],
    [{ file_name: '../etc/passwd', file_content: 'x' }, 'file_name'],
    [{ file_name: 'dir/a.txt', file_content: 'x' }, 'file_name'],
    [{ file_name: 'a.txt', file_content: '   \n ' }, 'file_content'],
    [{ file_name: 'a.pdf', file_content: 'not base64 at all!' }, 'file_content'],
    [{ file_name: 'a.pdf', file_content: Buffer.from('hello world').toString('base64') }, 'file_content'],
    [{ file_name: 'a.txt', file_content: 'x'.repeat(1_000_001) }, 'file_content'],
  ])('refuses %# with a 400 naming %s', async (input: Record<string, unknown>, field) => {
    const r = await call(bob, 'updateKnowledgeSources', input);
    expect(r.error?.code).toBe(400);
    expect(r.error?.data?.field).toBe(field);
    expect(r.error?.data?.constraint).toBeTruthy();
  });

  it('replaces a source re-added under the same name, without duplicate chunks', async () => {
    const first = await ok<Added>(carol, 'updateKnowledgeSources', {
      file_name: 'notes.txt',
      file_content: `Tardigrades survive vacuum. ${'Filler about tardigrades and moss. '.repeat(80)}`,
    });
    expect(first.data.chunks).toBeGreaterThan(1);
    const second = await ok<Added>(carol, 'updateKnowledgeSources', {
      file_name: 'notes.txt',
      file_content: 'Axolotls regenerate limbs and spinal cords.',
    });
    expect(second.data).toMatchObject({ replaced: true, chunks: 1 });
    expect(second.text).toContain('Replaced the previous version');
    const list = await ok<Listed>(carol, 'listKnowledgeSources');
    expect(list.data.sources.filter((s) => s.name === 'notes.txt')).toHaveLength(1);
    expect(list.data.sources.find((s) => s.name === 'notes.txt')!.chunks).toBe(1);
    expect(
      (await ok<Searched>(carol, 'searchKnowledge', { query: 'tardigrades vacuum' })).data.passages,
    ).toEqual([]);
    expect(
      (await ok<Searched>(carol, 'searchKnowledge', { query: 'axolotls regenerate' })).data.passages,
    ).toHaveLength(1);
    const stats = (await t.env.deps.bus.request(statsRpc('knowledge').subject, {
      since: new Date(0).toISOString(),
    })) as { figures: { chunks: number } };
    const all =
      (await ok<Listed>(bob, 'listKnowledgeSources')).data.chunks +
      (await ok<Listed>(carol, 'listKnowledgeSources')).data.chunks;
    expect(stats.figures.chunks).toBe(all);
    await ok(carol, 'removeKnowledgeSource', { source: 'notes.txt' });
  });

  it("lists only the caller's sources", async () => {
    const b = await ok<Listed>(bob, 'listKnowledgeSources');
    expect(b.data.sources.map((s) => s.name)).toEqual([
      'cells.html',
      'inner-link.md',
      'notes.md',
      'optics.md',
      'quantum_computing.txt',
      'research.pdf',
      'topological.pdf',
    ]);
    expect(b.data.total).toBe(7);
    expect(b.text).toContain('You have 7 knowledge sources');
    const c = await ok<Listed>(carol, 'listKnowledgeSources');
    expect(c.data.sources).toEqual([]);
    expect(c.text).toContain('no knowledge sources yet');
  });

  it("never lets another agent search or remove someone's sources", async () => {
    expect(
      (await ok<Searched>(carol, 'searchKnowledge', { query: 'quantum qubits entanglement' })).data.passages,
    ).toEqual([]);
    const theirs = await call(carol, 'removeKnowledgeSource', { source: 'quantum_computing.txt' });
    const none = await call(carol, 'removeKnowledgeSource', { source: 'no_such_source.txt' });
    expect(theirs.error?.code).toBe(404);
    expect(theirs.error?.message).toBe(
      "You have no knowledge source named 'quantum_computing.txt'. listKnowledgeSources shows yours.",
    );
    expect(none.error?.message).toBe(
      "You have no knowledge source named 'no_such_source.txt'. listKnowledgeSources shows yours.",
    );
    expect((await ok<Listed>(bob, 'listKnowledgeSources')).data.sources.map((s) => s.name)).toContain(
      'quantum_computing.txt',
    );
    expect((await retrieve(carolId, 'quantum qubits entanglement')).passages).toEqual([]);
  });

  it('searches with a source filter, validates the query and the limit', async () => {
    const r = await ok<Searched>(bob, 'searchKnowledge', {
      query: 'quantum qubits',
      source: 'topological.pdf',
    });
    expect(r.data.passages.every((p) => p.source === 'topological.pdf')).toBe(true);
    expect(r.data.strategy).toBe('bm25');
    expect((await call(bob, 'searchKnowledge', { query: 'what is the' })).error).toMatchObject({
      code: 400,
      data: { field: 'query' },
    });
    expect((await call(bob, 'searchKnowledge', { query: 'quantum', limit: 51 })).error).toMatchObject({
      code: 400,
      data: { field: 'limit', constraint: 'between 1 and 50' },
    });
    expect((await call(bob, 'searchKnowledge', { query: '' })).error).toMatchObject({
      code: 400,
      data: { field: 'query' },
    });
    expect(
      (await ok<Searched>(bob, 'searchKnowledge', { query: 'quantum', limit: 1 })).data.passages,
    ).toHaveLength(1);
  });

  it("answers rpc.knowledge.retrieve with the agent's relevant passages for an on-topic question", async () => {
    const r = await retrieve(bobId, 'What are the latest developments in quantum computing?');
    expect(r.passages[0]).toMatchObject({ source: 'quantum_computing.txt', relevant: true });
    expect(r.passages[0]!.text).toContain('error-corrected logical qubits');
    const scores = r.passages.filter((p) => p.relevant).map((p) => p.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('finds nothing relevant for a question on an unrelated topic, even with shared words', async () => {
    await ok(carol, 'updateKnowledgeSources', { file_name: 'sourdough.txt', file_content: SOURDOUGH_TEXT });
    await ok(carol, 'updateKnowledgeSources', {
      file_name: 'bakery-news.md',
      file_content:
        '# Bakery news\n\nThe latest developments in our bakery: a new oven, and cloud computing for the till.',
    });
    // Carol knows bread; a quantum question must find no relevant passage (no draft).
    const q = await retrieve(carolId, 'What are the latest developments in quantum computing?');
    expect(q.passages.filter((p) => p.relevant)).toEqual([]);
    // …while her own topic does.
    const bread = await retrieve(carolId, 'How often should I feed a sourdough starter?');
    expect(bread.passages[0]).toMatchObject({ source: 'sourdough.txt', relevant: true });
    // One specific word in common is not enough either.
    expect(
      (await retrieve(bobId, 'How do I proof sourdough in a cold oven?')).passages.filter((p) => p.relevant),
    ).toEqual([]);
    // An unknown agent has no knowledge.
    expect((await retrieve('00000000-0000-0000-0000-000000000000', 'quantum computing')).passages).toEqual(
      [],
    );
  });

  it('removes a source with its chunks and publishes KnowledgeSourceRemoved', async () => {
    const r = await ok<{ source: string; chunks: number }>(bob, 'removeKnowledgeSource', {
      source: 'cells.html',
    });
    expect(r.text).toBe(
      `Knowledge source 'cells.html' removed (${r.data.chunks} chunk${r.data.chunks === 1 ? '' : 's'}).`,
    );
    expect((await ok<Searched>(bob, 'searchKnowledge', { query: 'mitochondria ATP' })).data.passages).toEqual(
      [],
    );
    const removed = () =>
      t.events.find(
        (e) =>
          e.subject === KnowledgeSourceRemoved.subject &&
          (e.payload as { source: string }).source === 'cells.html',
      );
    await vi.waitFor(() => expect(removed()).toBeDefined());
    expect(removed()!.payload).toEqual({ agentId: bobId, handle: 'bob', source: 'cells.html' });
    expect((await call(bob, 'removeKnowledgeSource', { source: 'cells.html' })).error?.code).toBe(404);
  });

  it('answers rpc.knowledge.stats with sources, chunks and articles', async () => {
    const r = (await t.env.deps.bus.request(statsRpc('knowledge').subject, {
      since: new Date(Date.now() - 3_600_000).toISOString(),
    })) as {
      service: string;
      figures: Record<string, number>;
    };
    expect(r.service).toBe('knowledge');
    expect(r.figures).toMatchObject({ sources: 8, agentsWithKnowledge: 2 });
    expect(r.figures.chunks).toBeGreaterThanOrEqual(8);
    expect(r.figures.articles).toBeGreaterThanOrEqual(4);
    expect(typeof r.figures.callsToday).toBe('number');
  });
});

describe('knowledge sources without allowed roots', () => {
  let t: Env;
  beforeAll(async () => {
    t = await startEnv();
  });
  afterAll(() => t.close());

  it('refuses every file_path with 403', async () => {
    const { client } = await t.register('dave');
    const r = await call(client, 'updateKnowledgeSources', { file_path: '/etc/hostname' });
    expect(r.error).toMatchObject({ code: 403, data: { field: 'file_path' } });
    expect(r.error?.message).toContain('LORE_KNOWLEDGE_ROOTS');
  });
});
