import { describe, expect, it } from 'vitest';
import { compileFilter, parseFilter } from '../src/domain/filter.js';
import { decodePageToken, encodePageToken } from '../src/domain/paging.js';
import { firstParagraph, frontMatter, parseDocument, stripMdx, titleFromPath } from '../src/domain/parse.js';
import { AnswerQuota } from '../src/domain/quota.js';
import { nameForUrl, namePath, uriUnder } from '../src/domain/sources.js';
import { ToolError } from '@lore/kit';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';

const dialect = new SQLiteSyncDialect();
const render = (filter: string) => {
  const q = dialect.sqlToQuery(compileFilter(filter)!);
  return { sql: q.sql, params: q.params };
};
const filterError = (filter: string) => {
  try {
    parseFilter(filter);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    const e = err as ToolError;
    expect(e.code).toBe(400);
    expect(e.data?.field).toBe('filter');
    return e.message;
  }
  throw new Error(`no error for ${filter}`);
};

describe('parsing documents', () => {
  it('reads title and description from front matter, else the first heading and paragraph', () => {
    const fm = parseDocument('---\ntitle: "Routing"\ndescription: How routes match.\nsidebar: 2\n---\n# Other\n\nBody text.', 'markdown', 'x');
    expect(fm).toMatchObject({ title: 'Routing', description: 'How routes match.', splitFormat: 'markdown' });
    expect(fm.content.startsWith('# Other')).toBe(true);
    const plain = parseDocument('# Caching\n\nThe **cache** keeps [pages](./x) for `60` s.\nSecond line.\n\nMore.', 'markdown', 'x');
    expect(plain.title).toBe('Caching');
    expect(plain.description).toBe('The cache keeps pages for 60 s. Second line.');
    expect(parseDocument('Just text here.', 'markdown', 'Fallback name').title).toBe('Fallback name');
    expect(frontMatter('no front matter').data).toEqual({});
  });

  it('strips MDX imports, exports, comments and component-only lines but keeps their text and code', () => {
    const mdx = [
      "import { Tabs, Tab } from '@theme/Tabs';",
      'import Note from "./note.mdx"',
      'export const meta = { title: "x" };',
      '',
      '# Install',
      '',
      '{/* a comment */}',
      '<Tabs>',
      '<Tab label="npm">',
      '',
      'Run the installer.',
      '',
      '```js',
      "import x from 'y';",
      '<Tabs>',
      '```',
      '</Tab>',
      '</Tabs>',
      '<Note type="warning" />',
    ].join('\n');
    const out = stripMdx(mdx);
    expect(out).not.toMatch(/@theme|note\.mdx|export const|a comment|<Tab |<\/Tabs>\n|<Note/);
    expect(out).toContain('# Install');
    expect(out).toContain('Run the installer.');
    expect(out).toContain("```js\nimport x from 'y';\n<Tabs>\n```");
    const doc = parseDocument(mdx, 'mdx', 'x');
    expect(doc.title).toBe('Install');
    expect(doc.description).toBe('Run the installer.');
  });

  it('drops VitePress container markers, keeping custom titles', () => {
    const doc = parseDocument('# A\n\n::: warning Careful now\nText inside.\n:::\n', 'markdown', 'x');
    expect(doc.content).toBe('# A\n\n**Careful now**\nText inside.');
  });

  it('converts HTML to Markdown with the page title, meta description and main content', () => {
    const html = `<!doctype html><html><head><title>Middleware | Example Docs</title>
      <meta name="description" content="How middleware wraps handlers &amp; more."></head>
      <body><nav>Home Docs Blog</nav><header class="site">Site header</header>
      <main><h1>Middleware</h1><p>Middleware runs <em>before</em> and after handlers.</p>
      <h2>Order</h2><pre><code class="language-ts">app.use(logger())</code></pre></main>
      <footer>Copyright</footer></body></html>`;
    const doc = parseDocument(html, 'html', 'x');
    expect(doc.title).toBe('Middleware');
    expect(doc.description).toBe('How middleware wraps handlers & more.');
    expect(doc.content).toContain('# Middleware');
    expect(doc.content).toContain('## Order');
    expect(doc.content).toContain('```ts\napp.use(logger())\n```');
    expect(doc.content).not.toMatch(/Home Docs Blog|Site header|Copyright|<p>/);
    expect(parseDocument('<p>No title at all, just a paragraph.</p>', 'html', 'Page').title).toBe('Page');
  });

  it('treats plain text as text: title from a short first line, description from the first paragraph', () => {
    const doc = parseDocument('Release notes\n\nVersion 2 adds streaming.\n', 'text', 'x');
    expect(doc).toMatchObject({ title: 'Release notes', description: 'Version 2 adds streaming.', splitFormat: 'text' });
    expect(firstParagraph('```sh\nnpm i\n```\n\nAfter code.')).toBe('After code.');
    expect(titleFromPath('/docs/getting-started/basic_usage.md')).toBe('Basic usage');
    expect(titleFromPath('/docs/guides/index.md')).toBe('Guides');
  });
});

describe('document names', () => {
  it('drops extensions and index files, and maps files under a base URI', () => {
    expect(namePath('api/routing.md')).toBe('api/routing');
    expect(namePath('api/index.mdx')).toBe('api');
    expect(namePath('index.html')).toBe('index');
    expect(uriUnder(new URL('https://hono.dev/docs/'), 'api/routing.md')).toBe('https://hono.dev/docs/api/routing');
    expect(uriUnder(new URL('https://hono.dev/docs'), 'api/index.md')).toBe('https://hono.dev/docs/api/');
    expect(uriUnder(new URL('https://hono.dev/'), 'index.md')).toBe('https://hono.dev/');
    expect(nameForUrl(new URL('https://docs.example.com/storage/docs/creating-buckets.html?x=1#y'))).toBe(
      'documents/docs.example.com/storage/docs/creating-buckets',
    );
    expect(nameForUrl(new URL('http://127.0.0.1:8080/'))).toBe('documents/127.0.0.1:8080/index');
  });
});

describe('filters', () => {
  it('compiles comparisons, AND, OR (binding tighter, as in AIP-160), NOT and parentheses', () => {
    expect(render('data_source = "hono.dev"')).toEqual({ sql: '(d.data_source = ?)', params: ['hono.dev'] });
    expect(render("uri != 'https://x/a'").sql).toBe('(d.uri != ?)');
    expect(render('update_time > "2025-01-01T00:00:00Z"').params).toEqual([Date.parse('2025-01-01T00:00:00Z')]);
    expect(render('update_time <= 2025-01-01').params).toEqual([Date.parse('2025-01-01T00:00:00Z')]);
    expect(render('data_source = a AND data_source = b OR data_source = c').sql).toBe(
      '((d.data_source = ?) and ((d.data_source = ?) or (d.data_source = ?)))',
    );
    expect(render('(data_source = a AND uri = b) OR NOT data_source = c').sql).toBe(
      '(((d.data_source = ?) and (d.uri = ?)) or (not (d.data_source = ?)))',
    );
    expect(render('-data_source = a data_source = b').sql).toBe('((not (d.data_source = ?)) and (d.data_source = ?))');
    expect(render('uri = "https://hono.dev/docs/api/*"')).toEqual({
      sql: "(d.uri like ? escape '\\')",
      params: ['https://hono.dev/docs/api/%'],
    });
    expect(compileFilter('  ')).toBeNull();
  });

  it('reports what is wrong, naming filter', () => {
    expect(filterError('title = "x"')).toMatch(/unknown field "title"/);
    expect(filterError('data_source')).toMatch(/expected a comparison/);
    expect(filterError('data_source =')).toMatch(/expected a value after "="/);
    expect(filterError('data_source > "a"')).toMatch(/supports only = and !=/);
    expect(filterError('update_time > "yesterday"')).toMatch(/RFC 3339/);
    expect(filterError('(data_source = a')).toMatch(/expected "\)"/);
    expect(filterError('data_source = "a')).toMatch(/unterminated string/);
    expect(filterError('data_source = a )')).toMatch(/unexpected "\)"/);
    expect(filterError('data_source : a')).toMatch(/not supported/);
    expect(filterError('x'.repeat(501))).toMatch(/at most 500/);
  });
});

describe('page tokens', () => {
  it('round-trips an offset bound to its query and filter', () => {
    const token = encodePageToken(10, 'routing', 'data_source = a');
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, 'routing', 'data_source = a')).toBe(10);
    expect(decodePageToken(undefined, 'x', undefined)).toBe(0);
    expect(decodePageToken('', 'x', undefined)).toBe(0);
    for (const [t, q, f] of [
      [token, 'other query', 'data_source = a'],
      [token, 'routing', undefined],
      ['not-a-token', 'routing', undefined],
      [Buffer.from('{"v":1,"o":-1,"q":"x"}').toString('base64url'), 'routing', undefined],
    ] as const) {
      try {
        decodePageToken(t, q, f);
        throw new Error('accepted');
      } catch (err) {
        expect((err as ToolError).code).toBe(400);
        expect((err as ToolError).data?.field).toBe('pageToken');
      }
    }
  });
});

describe('answer quota', () => {
  it('allows N per minute and M per day per agent, says when to retry, and can refund', () => {
    let now = 1_000_000;
    const q = new AnswerQuota(2, 3, () => now);
    expect(q.take('a')).toBeNull();
    expect(q.take('a')).toBeNull();
    expect(q.take('a')).toMatchObject({ window: 'minute', limit: 2, retryAfterSeconds: 60 });
    expect(q.take('b')).toBeNull();
    now += 30_000;
    expect(q.take('a')?.retryAfterSeconds).toBe(30);
    now += 31_000;
    expect(q.take('a')).toBeNull();
    expect(q.take('a')).toMatchObject({ window: 'day', limit: 3 });
    q.refund('a');
    now += 61_000;
    expect(q.take('a')).toBeNull();
    expect(new AnswerQuota(0, 0).take('x')).toBeNull();
  });
});
