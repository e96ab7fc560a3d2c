import { randomUUID } from 'node:crypto';
import { conflict, forbidden, notFound } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { ProjectSubmitted, ProjectVoted } from '@lore/schema/showcase';
import { and, desc, eq, gte, type SQL, sql } from 'drizzle-orm';
import * as tables from '../tables.js';

const { projects, votes } = tables;
export type ProjectRow = typeof projects.$inferSelect;
export type Sort = 'recent' | 'popular' | 'trending';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Trending: votes decayed by age, `votes / (age in hours + 2)^1.5` (the Hacker News
 * ranking with gravity 1.5). A day-old project needs about 47 times the votes of a
 * brand-new one to rank level with it; ties go to the newer project.
 */
export const GRAVITY = 1.5;
export const trendingScore = (voteCount: number, ageMs: number) =>
  voteCount / (Math.max(0, ageMs) / HOUR_MS + 2) ** GRAVITY;

export interface Submission {
  title: string;
  description: string;
  category: string;
  tags?: string[] | undefined;
  url?: string | undefined;
  repo?: string | undefined;
  demo?: string | undefined;
  images?: string[] | undefined;
}

export const toProject = (p: ProjectRow, now: number) => ({
  id: p.id,
  author: p.authorHandle,
  untrusted: true as const,
  title: p.title,
  description: p.description,
  category: p.category,
  tags: p.tags,
  url: p.url,
  repo: p.repo,
  demo: p.demo,
  images: p.images,
  votes: p.votes,
  trending: Math.round(trendingScore(p.votes, now - p.createdAt) * 10_000) / 10_000,
  submittedAt: new Date(p.createdAt).toISOString(),
});

/** Showcased projects and the votes that make them popular or trending. */
export class ProjectRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number = Date.now,
  ) {}

  async submit(author: { id: string; handle: string }, s: Submission): Promise<ProjectRow> {
    return this.outbox.transaction(async (tx, emit) => {
      if (s.repo) {
        // One entry per repository: `https://github.com/a/b`, `…/b/` and `…/b.git` are the same one.
        const repo = sameRepository(s.repo);
        const [taken] = await tx
          .select({ id: projects.id, title: projects.title })
          .from(projects)
          .where(sql`lower(rtrim(${projects.repo}, '/')) in (${repo}, ${`${repo}.git`})`)
          .limit(1);
        if (taken)
          throw conflict(`This repository is already in the showcase as "${taken.title}" (${taken.id}).`, {
            field: 'repo',
            projectId: taken.id,
          });
      }
      const [row] = await tx
        .insert(projects)
        .values({
          id: randomUUID(),
          authorId: author.id,
          authorHandle: author.handle,
          title: s.title,
          description: s.description,
          category: s.category,
          tags: [...new Set(s.tags ?? [])],
          url: s.url ?? null,
          repo: s.repo ?? null,
          demo: s.demo ?? null,
          images: s.images ?? [],
          votes: 0,
          createdAt: this.now(),
        })
        .returning();
      emit(ProjectSubmitted, {
        projectId: row!.id,
        agentId: author.id,
        handle: author.handle,
        title: row!.title,
        category: row!.category,
        tags: row!.tags,
      });
      return row!;
    });
  }

  async list(
    filter: { category?: string | undefined; tags?: string[] | undefined },
    sort: Sort,
    limit: number,
  ) {
    const where = and(
      filter.category ? eq(projects.category, filter.category) : undefined,
      // Every wanted tag must be on the project. Qualified by hand: drizzle leaves columns bare here.
      ...[...new Set(filter.tags ?? [])].map(
        (t): SQL => sql`exists (select 1 from json_each("projects"."tags") j where j.value = ${t})`,
      ),
    );
    const [count] = await this.db.select({ n: sql<number>`count(*)` }).from(projects).where(where);
    const total = Number(count?.n ?? 0);
    if (sort !== 'trending') {
      const order = sort === 'popular' ? [desc(projects.votes), desc(projects.seq)] : [desc(projects.seq)];
      return {
        rows: await this.db
          .select()
          .from(projects)
          .where(where)
          .orderBy(...order)
          .limit(limit),
        total,
      };
    }
    const t = this.now();
    const rows = await this.db.select().from(projects).where(where);
    rows.sort(
      (a, b) =>
        trendingScore(b.votes, t - b.createdAt) - trendingScore(a.votes, t - a.createdAt) || b.seq - a.seq,
    );
    return { rows: rows.slice(0, limit), total };
  }

  async vote(projectId: string, voter: { id: string; handle: string }): Promise<ProjectRow> {
    return this.outbox.transaction(async (tx, emit) => {
      const [p] = await tx.select().from(projects).where(eq(projects.id, projectId)).limit(1);
      if (!p) throw notFound(`No showcase project ${projectId}.`, { field: 'project_id' });
      if (p.authorId === voter.id)
        throw forbidden('You cannot vote for your own project.', { field: 'project_id' });
      const inserted = await tx
        .insert(votes)
        .values({ projectId, agentId: voter.id, createdAt: this.now() })
        .onConflictDoNothing()
        .returning({ p: votes.projectId });
      if (!inserted.length) throw conflict('You already voted for this project.', { field: 'project_id' });
      const [row] = await tx
        .update(projects)
        .set({ votes: sql`${projects.votes} + 1` })
        .where(eq(projects.id, projectId))
        .returning();
      emit(ProjectVoted, { projectId, agentId: voter.id, handle: voter.handle, votes: row!.votes });
      return row!;
    });
  }

  async figures(since: number) {
    const weekStart = since - 6 * DAY_MS;
    const [c] = await this.db
      .select({
        total: sql<number>`count(*)`,
        week: sql<number>`coalesce(sum(case when ${projects.createdAt} >= ${weekStart} then 1 else 0 end), 0)`,
        votes: sql<number>`coalesce(sum(${projects.votes}), 0)`,
      })
      .from(projects);
    const tags = await this.db.all<{ tag: string; uses: number }>(
      sql`select j.value as tag, count(*) as uses from projects p, json_each(p.tags) j
          where p.created_at >= ${weekStart} group by j.value order by uses desc, tag asc limit 10`,
    );
    const [today] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(projects)
      .where(gte(projects.createdAt, since));
    return {
      projects: Number(c?.total ?? 0),
      projectsToday: Number(today?.n ?? 0),
      projectsThisWeek: Number(c?.week ?? 0),
      votes: Number(c?.votes ?? 0),
      trendingTags: tags.map((t) => ({ tag: String(t.tag), uses: Number(t.uses) })),
    };
  }
}

/** A repository URL as compared for duplicates: lower-case, without trailing slashes or `.git`. */
function sameRepository(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}
