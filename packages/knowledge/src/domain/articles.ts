import { conflict, notFound, type TextVectors } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { type ArticleCategory, ArticlePublished } from '@lore/schema/knowledge';
import type { VerifiedAgent } from '@lore/schema/users';
import { excerpt, fuseRankings } from '@lore/search';
import { and, eq, gte, type SQL, sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import { articleText, defaultSummary, slugify } from './article-text.js';
import { freeSlug, hashOf, indexArticle, insertArticle } from './article-writes.js';
import { type AnalyzedQuery, analyzeQuery } from './search-terms.js';

const { articles } = tables;
type Db = Database<typeof tables>;
type Row = typeof articles.$inferSelect;
export type ArticleOrigin = Row['origin'];

/** The author of the articles Lore ships. */
export const LORE_AUTHOR = 'lore';

export interface ArticleDraft {
  title: string;
  content: string;
  category: ArticleCategory;
  tags: string[];
  summary?: string | undefined;
  slug?: string | undefined;
}

export interface ArticleView {
  slug: string;
  title: string;
  author: string;
  category: ArticleCategory;
  tags: string[];
  summary: string;
  publishedAt: string;
  updatedAt: string;
  untrusted: boolean;
}

export interface ArticleHit extends ArticleView {
  excerpt: string;
  score: number;
  /** Whether the article holds the query's words, is close to it in meaning, or both. */
  foundBy: Array<'words' | 'meaning'>;
}

/**
 * Least cosine similarity (all-MiniLM-L6-v2) between a query and an article for the article to
 * count as found by meaning: the profile calibration's bar (see @lore/users' meaning.ts; an
 * article's opening is text of the same kind), a little higher since an article says more.
 */
export const ARTICLE_MIN_SIMILARITY = 0.25;
/** Ranked candidates of each signal fused per search (articles are few; the limit is at most 50). */
const FUSION_DEPTH = 50;

/** An article as a search reads it. */
interface ArticleRow {
  seq: number;
  slug: string;
  title: string;
  author: string;
  category: ArticleCategory;
  tags: string;
  summary: string;
  content: string;
  origin: ArticleOrigin;
  published_at: number;
  updated_at: number;
}

export function toView(r: Row): ArticleView {
  return {
    slug: r.slug,
    title: r.title,
    author: r.author,
    category: r.category,
    tags: r.tags,
    summary: r.summary,
    publishedAt: new Date(r.publishedAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
    untrusted: r.origin === 'agent',
  };
}

/** Community articles: published by agents, shipped with Lore, or loaded by the operator. */
export class ArticleRepository {
  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly now: () => number = Date.now,
  ) {}

  /** Articles found by meaning (none: by words alone). */
  vectors: TextVectors | null = null;

  /** Queues, in the background, the articles whose vector is missing or stale. */
  async refreshVectors(): Promise<void> {
    if (!this.vectors?.enabled) return;
    const rows = await this.db
      .select({
        seq: articles.seq,
        title: articles.title,
        tags: articles.tags,
        summary: articles.summary,
        content: articles.content,
      })
      .from(articles);
    this.vectors.refresh(rows.map((r) => ({ id: String(r.seq), text: articleText(r) })));
  }

  /** An agent publishes an article under its own handle; 409 when it already has one of that title. */
  async publish(agent: VerifiedAgent, draft: ArticleDraft): Promise<ArticleView> {
    const summary = draft.summary?.trim() || defaultSummary(draft.content);
    const t = this.now();
    const result = await this.outbox.transaction(async (tx, emit) => {
      const [dup] = await tx
        .select({ slug: articles.slug })
        .from(articles)
        .where(
          and(
            eq(articles.author, agent.handle),
            sql`lower(${articles.title}) = ${draft.title.toLowerCase()}`,
          ),
        )
        .limit(1);
      if (dup)
        throw conflict(`You already published an article titled '${draft.title}' (${dup.slug}).`, {
          field: 'title',
          slug: dup.slug,
        });
      const slug = await freeSlug(tx, slugify(draft.title));
      const row = await insertArticle(
        tx,
        { ...draft, slug, summary },
        { authorId: agent.id, author: agent.handle, origin: 'agent' },
        t,
      );
      emit(ArticlePublished, {
        slug,
        title: row.title,
        authorId: agent.id,
        author: agent.handle,
        category: row.category,
        tags: row.tags,
      });
      return toView(row);
    });
    // Found by words at once; by meaning once its vector is stored (in the background).
    await this.refreshVectors();
    return result;
  }

  /**
   * Inserts or updates an article by slug for the operator (CLI) or Lore's own seed. Idempotent:
   * an unchanged article is left alone. Never overwrites an article an agent published.
   */
  async upsertTrusted(
    draft: ArticleDraft & { slug: string },
    author: string,
    origin: Exclude<ArticleOrigin, 'agent'>,
  ): Promise<'created' | 'updated' | 'unchanged'> {
    const summary = draft.summary?.trim() || defaultSummary(draft.content);
    const hash = hashOf(draft, summary);
    const t = this.now();
    const result = await this.outbox.transaction(async (tx, emit) => {
      const [existing] = await tx.select().from(articles).where(eq(articles.slug, draft.slug)).limit(1);
      if (existing) {
        if (existing.origin === 'agent')
          throw conflict(
            `The slug '${draft.slug}' belongs to an article @${existing.author} published; choose another slug.`,
            { slug: draft.slug },
          );
        if (existing.contentHash === hash && existing.author === author) return 'unchanged';
        await tx.run(sql`delete from articles_fts where rowid = ${existing.seq}`);
        await tx
          .update(articles)
          .set({
            title: draft.title,
            content: draft.content,
            category: draft.category,
            tags: draft.tags,
            summary,
            author,
            origin,
            contentHash: hash,
            updatedAt: t,
          })
          .where(eq(articles.seq, existing.seq));
        await indexArticle(tx, existing.seq, { ...draft, summary });
        return 'updated';
      }
      const row = await insertArticle(tx, { ...draft, summary }, { authorId: null, author, origin }, t);
      emit(ArticlePublished, {
        slug: row.slug,
        title: row.title,
        authorId: null,
        author,
        category: row.category,
        tags: row.tags,
      });
      return 'created';
    });
    if (result !== 'unchanged') await this.refreshVectors();
    return result;
  }

  async get(slug: string): Promise<(ArticleView & { content: string }) | null> {
    const [row] = await this.db.select().from(articles).where(eq(articles.slug, slug.toLowerCase())).limit(1);
    return row ? { ...toView(row), content: row.content } : null;
  }

  async getOrThrow(slug: string) {
    const a = await this.get(slug);
    if (!a) throw notFound(`No article with slug '${slug}'. Find articles with article_search.`, { slug });
    return a;
  }

  /**
   * BM25 over title (×5), tags (×3), summary (×2) and body and, with an embedder, the articles
   * closest in meaning, the two rankings fused (reciprocal rank fusion); optional category and
   * tag filters apply to both.
   */
  async search(
    text: string,
    opts: { category?: ArticleCategory | undefined; tags?: string[] | undefined; limit: number },
  ): Promise<{ query: AnalyzedQuery; total: number; hits: ArticleHit[] }> {
    const q = analyzeQuery(text);
    if (!q.match) return { query: q, total: 0, hits: [] };
    const filters: SQL[] = [];
    if (opts.category) filters.push(sql`a.category = ${opts.category}`);
    for (const tag of opts.tags ?? [])
      filters.push(sql`exists (select 1 from json_each(a.tags) where value = ${tag})`);
    const where = filters.length ? sql`where ${sql.join(filters, sql` and `)}` : sql``;
    const near = await this.vectors?.nearest(text, {
      limit: FUSION_DEPTH,
      minSimilarity: ARTICLE_MIN_SIMILARITY,
    });
    const depth = near ? Math.max(opts.limit, FUSION_DEPTH) : opts.limit;
    const rows = await this.db.all<ArticleRow & { r: number; total: number }>(sql`
      select a.seq, a.slug, a.title, a.author, a.category, a.tags, a.summary, a.content, a.origin, a.published_at, a.updated_at,
             f.r, count(*) over () as total
      from (select rowid as seq, bm25(articles_fts, 5.0, 3.0, 2.0, 1.0) as r from articles_fts where articles_fts match ${q.match}) f
      join articles a on a.seq = f.seq
      ${where}
      order by f.r, a.published_at desc
      limit ${depth}`);
    const hit = (r: ArticleRow, score: number, foundBy: ArticleHit['foundBy']): ArticleHit => ({
      slug: r.slug,
      title: r.title,
      author: r.author,
      category: r.category,
      tags: JSON.parse(r.tags) as string[],
      summary: r.summary,
      publishedAt: new Date(r.published_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
      untrusted: r.origin === 'agent',
      excerpt: excerpt(r.content, [...q.terms, ...q.stems]),
      score,
      foundBy,
    });
    const lexicalTotal = Number(rows[0]?.total ?? 0);
    if (!near?.length) {
      const hits = rows.slice(0, opts.limit).map((r) => hit(r, -r.r, ['words']));
      return { query: q, total: lexicalTotal, hits };
    }
    const byWords = new Map(rows.map((r) => [String(r.seq), r]));
    const unseen = near.map((n) => Number(n.id)).filter((seq) => !byWords.has(String(seq)));
    const extra = unseen.length
      ? await this.db.all<ArticleRow>(sql`
          select a.seq, a.slug, a.title, a.author, a.category, a.tags, a.summary, a.content, a.origin, a.published_at, a.updated_at
          from articles a
          ${filters.length ? sql`where ${sql.join(filters, sql` and `)} and` : sql`where`} a.seq in (${sql.join(
            unseen.map((seq) => sql`${seq}`),
            sql`, `,
          )})`)
      : [];
    const byMeaning = new Map(extra.map((r) => [String(r.seq), r]));
    const meaningIds = near.map((n) => n.id).filter((id) => byWords.has(id) || byMeaning.has(id));
    const fused = fuseRankings([
      { signal: 'words', ids: rows.map((r) => String(r.seq)) },
      { signal: 'meaning', ids: meaningIds },
    ]);
    const hits = fused
      .slice(0, opts.limit)
      .map((f) =>
        hit((byWords.get(f.id) ?? byMeaning.get(f.id))!, f.score, f.signals as ArticleHit['foundBy']),
      );
    return { query: q, total: lexicalTotal + byMeaning.size, hits };
  }

  async counts(since: number): Promise<{ articles: number; articlesToday: number }> {
    const [all] = await this.db.select({ n: sql<number>`count(*)` }).from(articles);
    const [today] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(articles)
      .where(gte(articles.publishedAt, since));
    return { articles: Number(all?.n ?? 0), articlesToday: Number(today?.n ?? 0) };
  }
}
