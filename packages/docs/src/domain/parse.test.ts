import { frontMatter } from '@lore/ingest';
import { describe, expect, it } from 'vitest';
import { firstParagraph, parseDocument, stripMdx, titleFromPath } from './parse.js';

describe('parsing documents', () => {
  it('reads title and description from front matter, else the first heading and paragraph', () => {
    const fm = parseDocument(
      '---\ntitle: "Routing"\ndescription: How routes match.\nsidebar: 2\n---\n# Other\n\nBody text.',
      'markdown',
      'x',
    );
    expect(fm).toMatchObject({ title: 'Routing', description: 'How routes match.', splitFormat: 'markdown' });
    expect(fm.content.startsWith('# Other')).toBe(true);
    const plain = parseDocument(
      '# Caching\n\nThe **cache** keeps [pages](./x) for `60` s.\nSecond line.\n\nMore.',
      'markdown',
      'x',
    );
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
    expect(doc).toMatchObject({
      title: 'Release notes',
      description: 'Version 2 adds streaming.',
      splitFormat: 'text',
    });
    expect(firstParagraph('```sh\nnpm i\n```\n\nAfter code.')).toBe('After code.');
    expect(titleFromPath('/docs/getting-started/basic_usage.md')).toBe('Basic usage');
    expect(titleFromPath('/docs/guides/index.md')).toBe('Guides');
  });
});
