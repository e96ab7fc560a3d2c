import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { frontMatter } from '@lore/ingest';
import { ArticleCategory, ArticlePublishInput } from '@lore/schema/knowledge';
import { slugify } from './article-text.js';
import type { ArticleDraft } from './articles.js';

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
  const { data, body, error } = frontMatter(text);
  if (error) return { ok: false, error };
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
