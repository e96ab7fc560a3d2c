import { createHash } from 'node:crypto';
import type { Transaction } from '@lore/kit/db';
import { sql } from 'drizzle-orm';
import { articles } from '../tables.js';
import type { ArticleDraft, ArticleOrigin } from './articles.js';
import { indexTerms } from './search-terms.js';

type Row = typeof articles.$inferSelect;

export const hashOf = (d: ArticleDraft, summary: string) =>
  createHash('sha256')
    .update(JSON.stringify([d.title, d.content, d.category, d.tags, summary]))
    .digest('hex');

export async function freeSlug(tx: Transaction, base: string): Promise<string> {
  const taken = new Set(
    (
      await tx
        .select({ slug: articles.slug })
        .from(articles)
        .where(sql`${articles.slug} = ${base} or ${articles.slug} like ${`${base}-%`}`)
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export async function insertArticle(
  tx: Transaction,
  d: ArticleDraft & { slug: string; summary: string },
  by: { authorId: string | null; author: string; origin: ArticleOrigin },
  t: number,
): Promise<Row> {
  const [row] = await tx
    .insert(articles)
    .values({
      slug: d.slug,
      title: d.title,
      content: d.content,
      category: d.category,
      tags: d.tags,
      summary: d.summary,
      authorId: by.authorId,
      author: by.author,
      origin: by.origin,
      contentHash: hashOf(d, d.summary),
      publishedAt: t,
      updatedAt: t,
    })
    .returning();
  await indexArticle(tx, row!.seq, d);
  return row!;
}

/** Writes an article's FTS row (its stems; also what `reindexKnowledge` rewrites it with). */
export async function indexArticle(
  tx: Transaction,
  seq: number,
  d: Pick<ArticleDraft, 'title' | 'tags' | 'content'> & { summary: string },
): Promise<void> {
  await tx.run(sql`insert into articles_fts(rowid, title, tags, summary, body)
    values (${seq}, ${indexTerms(d.title)}, ${indexTerms(d.tags.join(' '))}, ${indexTerms(d.summary)}, ${indexTerms(d.content)})`);
}
