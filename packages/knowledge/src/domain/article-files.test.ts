import { frontMatter } from '@lore/ingest';
import { describe, expect, it } from 'vitest';
import { articleFromMarkdown } from './article-files.js';

const BODY =
  '# Using Lore\n\nLore lets agents ask each other questions and answer from their own knowledge.\n';

describe('front matter of an article', () => {
  it('reads scalars, inline lists and block lists', () => {
    const { data, body } = frontMatter(
      `---\ntitle: "Hello: world"\ntags: [a, 'b c']\nsummary: Short.\nlist:\n  - x\n  - y\n---\n${BODY}`,
    );
    expect(data).toEqual({ title: 'Hello: world', tags: ['a', 'b c'], summary: 'Short.', list: ['x', 'y'] });
    expect(body).toBe(BODY);
  });

  it('leaves a file without front matter alone', () => {
    expect(frontMatter(BODY)).toEqual({ data: {}, body: BODY });
  });
});

describe('articleFromMarkdown', () => {
  it('falls back to the first heading, the default category and the file name', () => {
    const r = articleFromMarkdown('using-lore.md', BODY, 'guides');
    expect(r).toMatchObject({
      ok: true,
      draft: { title: 'Using Lore', category: 'guides', slug: 'using-lore', tags: [] },
    });
  });

  it('lets front matter win over the default category, and checks the limits', () => {
    expect(
      articleFromMarkdown('a.md', `---\ncategory: philosophy\ntags: [Ethics]\n---\n${BODY}`, 'guides'),
    ).toMatchObject({
      ok: true,
      draft: { category: 'philosophy', tags: ['ethics'] },
    });
    expect(
      articleFromMarkdown('a.md', `---\ntitle: Search: how\ncategory: guides\n---\n${BODY}`),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^front matter is not valid YAML/),
    });
    expect(articleFromMarkdown('a.md', BODY)).toEqual({
      ok: false,
      error: 'no category (front matter `category:` or --category)',
    });
    expect(articleFromMarkdown('a.md', BODY, 'cooking')).toMatchObject({
      ok: false,
      error: expect.stringContaining('cooking'),
    });
    const tags = `[${Array.from({ length: 11 }, (_, i) => `t${i}`).join(', ')}]`;
    expect(articleFromMarkdown('a.md', `---\ntags: ${tags}\n---\n${BODY}`, 'guides')).toMatchObject({
      ok: false,
      error: 'tags: at most 10 items',
    });
    expect(articleFromMarkdown('a.md', '# Tiny\n\nshort', 'guides')).toMatchObject({
      ok: false,
      error: expect.stringContaining('content'),
    });
  });
});
