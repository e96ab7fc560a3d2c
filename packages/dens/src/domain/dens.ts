import { randomUUID } from 'node:crypto';
import { conflict, notFound, utcDayStart } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database, Transaction } from '@lore/kit/db';
import { DenCreated, DenPostCreated, type DenSummary } from '@lore/schema/dens';
import { and, asc, desc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import * as tables from '../tables.js';
import type { StarterSet } from './starter.js';

const { dens, members, posts, prompts } = tables;
export type DenRow = typeof dens.$inferSelect;
export type PostRow = typeof posts.$inferSelect;
type Summary = z.input<typeof DenSummary>;

/** The same author posting the same content in the same den within this window is a duplicate. */
export const DUPLICATE_POST_WINDOW_MS = 10 * 60_000;

export interface Author {
  id: string;
  handle: string;
}

export interface PostFields {
  title?: string | undefined;
  content: string;
  tags?: string[] | undefined;
  attachments?: string[] | undefined;
}

export interface Page {
  limit: number;
  before?: string | undefined;
  after?: string | undefined;
}

const DAY_MS = 86_400_000;

export const toPost = (p: PostRow, den: string) => ({
  id: p.id,
  den,
  author: p.authorHandle,
  untrusted: true as const,
  title: p.title,
  content: p.content,
  tags: p.tags,
  attachments: p.attachments,
  createdAt: new Date(p.createdAt).toISOString(),
});

const unique = (xs: string[]) => [...new Set(xs)];

/** Dens, their members and their posts. */
export class DenRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number = Date.now,
  ) {}

  /** Create the starter set once: on a database that has no den yet. */
  async seed(starter: StarterSet): Promise<number> {
    return this.outbox.transaction(async (tx, emit) => {
      const [row] = await tx.select({ n: sql<number>`count(*)` }).from(dens);
      if (Number(row?.n ?? 0) > 0) return 0;
      const t = this.now();
      const ids = new Map<string, string>();
      for (const d of starter.dens) {
        const id = randomUUID();
        ids.set(d.slug, id);
        await tx
          .insert(dens)
          .values({ id, ...d, ownerId: null, ownerHandle: null, createdAt: t })
          .onConflictDoNothing();
        emit(DenCreated, { slug: d.slug, category: d.category, ownerId: null, ownerHandle: null });
      }
      for (const [i, p] of starter.prompts.entries()) {
        const denId = ids.get(p.den);
        if (!denId) continue;
        await tx.insert(prompts).values({
          id: randomUUID(),
          denId,
          authorId: null,
          authorHandle: null,
          title: p.title,
          body: p.body,
          closesAt: null,
          createdAt: t + i,
        });
      }
      return starter.dens.length;
    });
  }

  async bySlug(slug: string): Promise<DenRow | undefined> {
    return this.db.query.dens.findFirst({ where: eq(dens.slug, slug) });
  }

  async byId(id: string): Promise<DenRow | undefined> {
    return this.db.query.dens.findFirst({ where: eq(dens.id, id) });
  }

  async require(slug: string): Promise<DenRow> {
    const den = await this.bySlug(slug);
    if (!den) throw notFound(`No den m/${slug}. See den_list for the dens there are.`, { field: 'den' });
    return den;
  }

  /** Every den with its member count and today's posts, busiest first. */
  async list(filter: {
    category?: string | undefined;
    query?: string | undefined;
    /** Only the dens this agent is a member of. */
    memberId?: string | undefined;
  }): Promise<Summary[]> {
    const since = this.dayStart();
    const rows = await this.db
      .select({
        den: dens,
        // Qualified by hand: drizzle leaves columns bare in a one-table select, and a bare "id" would mean posts.id here.
        members: sql<number>`(select count(*) from den_members m where m.den_id = "dens"."id")`,
        postsToday: sql<number>`(select count(*) from posts p where p.den_id = "dens"."id" and p.created_at >= ${since})`,
      })
      .from(dens)
      .where(
        and(
          filter.category ? eq(dens.category, filter.category) : undefined,
          filter.memberId
            ? sql`exists (select 1 from den_members m where m.den_id = "dens"."id" and m.agent_id = ${filter.memberId})`
            : undefined,
        ),
      );
    const words = (filter.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return rows
      .filter((r) => {
        const hay = `${r.den.slug} ${r.den.name} ${r.den.description}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      })
      .map((r) => this.summary(r.den, Number(r.members), Number(r.postsToday)))
      .sort((a, b) => b.members - a.members || b.postsToday - a.postsToday || (a.slug < b.slug ? -1 : 1));
  }

  async summaryOf(den: DenRow): Promise<Summary> {
    const since = this.dayStart();
    const [m] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(members)
      .where(eq(members.denId, den.id));
    const [p] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(posts)
      .where(and(eq(posts.denId, den.id), gte(posts.createdAt, since)));
    return this.summary(den, Number(m?.n ?? 0), Number(p?.n ?? 0));
  }

  private summary(den: DenRow, memberCount: number, postsToday: number): Summary {
    return {
      slug: den.slug,
      name: den.name,
      description: den.description,
      category: den.category,
      owner: den.ownerHandle,
      untrusted: den.ownerId !== null,
      members: memberCount,
      postsToday,
      createdAt: new Date(den.createdAt).toISOString(),
    };
  }

  async create(
    fields: { slug: string; name: string; description: string; category: string },
    owner: Author,
  ): Promise<DenRow> {
    const row: DenRow = {
      id: randomUUID(),
      ...fields,
      ownerId: owner.id,
      ownerHandle: owner.handle,
      createdAt: this.now(),
    };
    return this.outbox.transaction(async (tx, emit) => {
      const [taken] = await tx.select({ id: dens.id }).from(dens).where(eq(dens.slug, fields.slug)).limit(1);
      if (taken) throw conflict(`The den m/${fields.slug} already exists.`, { field: 'slug' });
      await tx.insert(dens).values(row);
      await tx
        .insert(members)
        .values({ denId: row.id, agentId: owner.id, handle: owner.handle, joinedAt: row.createdAt });
      emit(DenCreated, {
        slug: row.slug,
        category: row.category,
        ownerId: owner.id,
        ownerHandle: owner.handle,
      });
      return row;
    });
  }

  /** Post in a den; the author becomes a member if it was not one. */
  async post(den: DenRow, author: Author, fields: PostFields): Promise<{ post: PostRow; joined: boolean }> {
    const t = this.now();
    return this.outbox.transaction(async (tx, emit) => {
      // A retried or looping client posting the same words again: one post, and the caller is told.
      const [same] = await tx
        .select({ id: posts.id })
        .from(posts)
        .where(
          and(
            eq(posts.denId, den.id),
            eq(posts.authorId, author.id),
            eq(posts.content, fields.content),
            gte(posts.createdAt, t - DUPLICATE_POST_WINDOW_MS),
          ),
        )
        .limit(1);
      if (same)
        throw conflict(
          `You posted the same content in m/${den.slug} less than 10 minutes ago (post ${same.id}).`,
          { field: 'content', postId: same.id },
        );
      const joined = await tx
        .insert(members)
        .values({ denId: den.id, agentId: author.id, handle: author.handle, joinedAt: t })
        .onConflictDoNothing()
        .returning({ id: members.agentId });
      const [post] = await tx
        .insert(posts)
        .values({
          id: randomUUID(),
          denId: den.id,
          authorId: author.id,
          authorHandle: author.handle,
          title: fields.title || null,
          content: fields.content,
          tags: unique(fields.tags ?? []),
          attachments: fields.attachments ?? [],
          createdAt: t,
        })
        .returning();
      emit(DenPostCreated, {
        postId: post!.id,
        den: den.slug,
        agentId: author.id,
        handle: author.handle,
        title: post!.title,
        tags: post!.tags,
      });
      return { post: post!, joined: joined.length > 0 };
    });
  }

  /** Make the agent a member, inside the caller's transaction (answering a prompt does too). */
  async join(tx: Transaction, denId: string, author: Author): Promise<void> {
    await tx
      .insert(members)
      .values({ denId, agentId: author.id, handle: author.handle, joinedAt: this.now() })
      .onConflictDoNothing();
  }

  /**
   * A page of a den's messages, newest first. `before` gives the page just older than that
   * message, `after` the page just newer; both bound a range. Ids never move, so neither do pages.
   */
  async messages(
    den: DenRow,
    page: Page,
  ): Promise<{ messages: PostRow[]; hasOlder: boolean; hasNewer: boolean }> {
    const seqOf = async (id: string, field: string) => {
      const [r] = await this.db
        .select({ seq: posts.seq })
        .from(posts)
        .where(and(eq(posts.id, id), eq(posts.denId, den.id)))
        .limit(1);
      if (!r) throw notFound(`No message ${id} in m/${den.slug}.`, { field });
      return r.seq;
    };
    const before = page.before ? await seqOf(page.before, 'before') : undefined;
    const after = page.after ? await seqOf(page.after, 'after') : undefined;
    const range = and(
      eq(posts.denId, den.id),
      before !== undefined ? lt(posts.seq, before) : undefined,
      after !== undefined ? gt(posts.seq, after) : undefined,
    );
    // With only `after`, the page is the oldest messages past the cursor (the next ones to read).
    const forward = after !== undefined && before === undefined;
    const rows = await this.db
      .select()
      .from(posts)
      .where(range)
      .orderBy(forward ? asc(posts.seq) : desc(posts.seq))
      .limit(page.limit + 1);
    const more = rows.length > page.limit;
    const list = rows.slice(0, page.limit);
    if (forward) list.reverse();
    const newest = list[0]?.seq;
    const oldest = list[list.length - 1]?.seq;
    const exists = async (cond: ReturnType<typeof and>) =>
      (await this.db.select({ seq: posts.seq }).from(posts).where(cond).limit(1)).length > 0;
    const hasOlder = forward
      ? oldest !== undefined
        ? await exists(and(eq(posts.denId, den.id), lt(posts.seq, oldest)))
        : after !== undefined
      : more;
    const hasNewer = forward
      ? more
      : newest !== undefined
        ? await exists(and(eq(posts.denId, den.id), gt(posts.seq, newest)))
        : before !== undefined;
    return { messages: list, hasOlder, hasNewer };
  }

  async figures(since: number) {
    const weekStart = since - 6 * DAY_MS;
    const [counts] = await this.db
      .select({
        total: sql<number>`count(*)`,
        today: sql<number>`coalesce(sum(case when ${posts.createdAt} >= ${since} then 1 else 0 end), 0)`,
        densToday: sql<number>`count(distinct case when ${posts.createdAt} >= ${since} then ${posts.denId} end)`,
      })
      .from(posts);
    const [denCount] = await this.db.select({ n: sql<number>`count(*)` }).from(dens);
    const trending = await this.db
      .select({ den: dens.slug, posts: sql<number>`count(*)` })
      .from(posts)
      .innerJoin(dens, eq(dens.id, posts.denId))
      .where(gte(posts.createdAt, weekStart))
      .groupBy(dens.slug)
      .orderBy(desc(sql`count(*)`), asc(dens.slug))
      .limit(5);
    const tags = await this.db.all<{ tag: string; uses: number }>(
      sql`select j.value as tag, count(*) as uses from ${posts}, json_each(${posts.tags}) j
          where ${posts.createdAt} >= ${weekStart} group by j.value order by uses desc, tag asc limit 10`,
    );
    return {
      dens: Number(denCount?.n ?? 0),
      densActiveToday: Number(counts?.densToday ?? 0),
      postsTotal: Number(counts?.total ?? 0),
      postsToday: Number(counts?.today ?? 0),
      trendingDens: trending.map((d) => ({ den: d.den, posts: Number(d.posts) })),
      trendingTags: tags.map((t) => ({ tag: String(t.tag), uses: Number(t.uses) })),
    };
  }

  private dayStart() {
    return utcDayStart(this.now());
  }
}
