import { describe, expect, it } from 'vitest';
import { frontMatter, MAX_FRONT_MATTER_CHARS } from './front-matter.js';

const BODY = '# Using Lore\n\nBody text.\n';

describe('front matter', () => {
  it('reads scalars, inline lists, block lists and block scalars, keys in lower case', () => {
    const { data, body } = frontMatter(
      `---\nTitle: "Hello: world"\ntags: [a, 'b c']\nsummary: Short.\nsidebar: 2\nlist:\n  - x\n  - y\nabout: |\n  two\n  lines\n---\n${BODY}`,
    );
    expect(data).toEqual({
      title: 'Hello: world',
      tags: ['a', 'b c'],
      summary: 'Short.',
      sidebar: '2',
      list: ['x', 'y'],
      about: 'two\nlines',
    });
    expect(body).toBe(BODY);
  });

  it('leaves out what is not a scalar or a list, and survives a block that is not YAML', () => {
    expect(frontMatter(`---\nnested:\n  a: 1\nempty:\ntitle: T\n---\n${BODY}`).data).toEqual({ title: 'T' });
    expect(frontMatter(`---\ntitle: [unclosed\n: : :\n---\n${BODY}`)).toMatchObject({ data: {}, body: BODY });
    expect(frontMatter(`---\ntitle: Search: how\n---\n${BODY}`).error).toMatch(
      /^front matter is not valid YAML: /,
    );
  });

  it('accepts CRLF, a byte order mark and a `...` end, and leaves a file without front matter alone', () => {
    expect(frontMatter(`\uFEFF---\r\ntitle: T\r\n...\r\n${BODY}`)).toEqual({
      data: { title: 'T' },
      body: BODY,
    });
    expect(frontMatter(BODY)).toEqual({ data: {}, body: BODY });
    expect(frontMatter('---\nnot closed\n# Title')).toEqual({ data: {}, body: '---\nnot closed\n# Title' });
  });

  it('does not expand aliases past a hundred (a billion laughs), nor read a block past its size', () => {
    const laughs = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const name = String.fromCharCode(98 + i);
        return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`;
      }),
    ].join('\n');
    const bomb = frontMatter(`---\n${laughs}\n---\n${BODY}`);
    expect(bomb.data).toEqual({});
    expect(bomb.error).toMatch(/front matter is not valid YAML: .*alias/i);
    expect(bomb.body).toBe(BODY);
    const long = frontMatter(`---\ntitle: ${'x'.repeat(MAX_FRONT_MATTER_CHARS)}\n---\n${BODY}`);
    expect(long.data).toEqual({});
    expect(long.error).toBe('front matter is longer than 65,536 characters');
    expect(long.body).toBe(BODY);
  });
});
