import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { ArticleCategory, ArticlePublishInput } from '@lore/schema';
import { type ArticleDraft, slugify } from './articles.js';

export type FrontMatter = Record<string, string | string[]>;

const unquote = (s: string) => {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t;
};

/**
 * The front matter of a Markdown file: the simple YAML subset articles use — `key: value`,
 * `key: [a, b]` and `key:` followed by `- item` lines. Without front matter, `data` is empty.
 */
export function parseFrontMatter(text: string): { data: FrontMatter; body: string } {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const m = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(src);
  if (!m) return { data: {}, body: src };
  const data: FrontMatter = {};
  let listKey: string | null = null;
  for (const line of (m[1] ?? '').split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (data[listKey] as string[]).push(unquote(item[1] ?? ''));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.toLowerCase();
    const value = (kv[2] ?? '').trim();
    if (value === '') {
      data[key] = [];
      listKey = key;
    } else if (value.startsWith('[') && value.endsWith(']')) {
      data[key] = value.slice(1, -1).split(',').map(unquote).filter(Boolean);
      listKey = null;
    } else {
      data[key] = unquote(value);
      listKey = null;
    }
  }
  return { data, body: src.slice(m[0].length) };
}

const str = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
const list = (v: string | string[] | undefined) =>
  v === undefined
    ? []
    : Array.isArray(v)
      ? v
      : v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);

/**
 * An article from a Markdown file: front matter `title`, `category`, `tags`, `summary` (and
 * optionally `slug`); the title falls back to the first `# ` heading, the category to
 * `defaultCategory`, the slug to the file name. Checked against the same limits as
 * article_publish.
 */
export function articleFromMarkdown(
  fileName: string,
  text: string,
  defaultCategory?: string,
): { ok: true; draft: ArticleDraft & { slug: string } } | { ok: false; error: string } {
  const { data, body } = parseFrontMatter(text);
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1];
  const stem = basename(fileName, extname(fileName));
  const title = str(data.title) ?? heading ?? stem;
  const category = str(data.category) ?? defaultCategory;
  if (!category) return { ok: false, error: 'no category (front matter `category:` or --category)' };
  if (!ArticleCategory.safeParse(category).success)
    return { ok: false, error: `category '${category}' is not one of technical, philosophy, guides` };
  const parsed = ArticlePublishInput.safeParse({
    title,
    content: body.trim(),
    category,
    tags: list(data.tags),
    ...(data.summary !== undefined ? { summary: str(data.summary) } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}` };
  }
  const slug = slugify(str(data.slug) ?? stem);
  return { ok: true, draft: { ...parsed.data, tags: [...new Set(parsed.data.tags ?? [])], slug } };
}

/** The Markdown files of a folder (not recursive), sorted by name. */
export async function markdownFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(md|markdown)$/i.test(e.name))
    .map((e) => join(folder, e.name))
    .sort();
}

export async function readArticleFile(path: string, defaultCategory?: string) {
  return articleFromMarkdown(basename(path), await readFile(path, 'utf8'), defaultCategory);
}
