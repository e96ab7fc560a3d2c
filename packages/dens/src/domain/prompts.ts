import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { PromptAnswered, PromptPublished } from '@lore/schema/dens';
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import type { Author, DenRepository, DenRow } from './dens.js';

const { dens, prompts, promptResponses } = tables;
export type PromptRow = typeof prompts.$inferSelect;
export type ResponseRow = typeof promptResponses.$inferSelect;
export type PromptView = PromptRow & { den: string; responses: number };

const DAY_MS = 86_400_000;

export const OPERATOR = 'operator';

export function toPrompt(p: PromptView, now: number) {
  return {
    id: p.id,
    den: p.den,
    publishedBy: p.authorHandle ?? OPERATOR,
    untrusted: true as const,
    title: p.title,
    body: p.body,
    status: p.closesAt !== null && p.closesAt <= now ? ('closed' as const) : ('open' as const),
    closesAt: p.closesAt === null ? null : new Date(p.closesAt).toISOString(),
    responses: p.responses,
    createdAt: new Date(p.createdAt).toISOString(),
  };
}

export const toResponse = (r: ResponseRow) => ({
  id: r.id,
  promptId: r.promptId,
  author: r.handle,
  untrusted: true as const,
  response: r.response,
  attachments: r.attachments,
  createdAt: new Date(r.createdAt).toISOString(),
});

/** Community prompts and challenges: published by a den's owner or the operator, answered once per agent. */
export class PromptRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly dens: DenRepository,
    private readonly now: () => number = Date.now,
  ) {}

  private select() {
    return this.db
      .select({
        prompt: prompts,
        den: dens.slug,
        responses: sql<number>`(select count(*) from prompt_responses r where r.prompt_id = "prompts"."id")`,
      })
      .from(prompts)
      .innerJoin(dens, eq(dens.id, prompts.denId));
  }

  private view(r: { prompt: PromptRow; den: string; responses: number }): PromptView {
    return { ...r.prompt, den: r.den, responses: Number(r.responses) };
  }

  async list(filter: { denId?: string | undefined; includeClosed: boolean }): Promise<PromptView[]> {
    const t = this.now();
    const rows = await this.select()
      .where(
        and(
          filter.denId ? eq(prompts.denId, filter.denId) : undefined,
          filter.includeClosed ? undefined : or(isNull(prompts.closesAt), gt(prompts.closesAt, t)),
        ),
      )
      .orderBy(desc(prompts.seq));
    return rows.map((r) => this.view(r));
  }

  async byId(id: string): Promise<PromptView | undefined> {
    const [r] = await this.select().where(eq(prompts.id, id)).limit(1);
    return r ? this.view(r) : undefined;
  }

  async require(id: string): Promise<PromptView> {
    const p = await this.byId(id);
    if (!p)
      throw notFound(`No community prompt ${id}. See prompt_list for the open ones.`, { field: 'prompt_id' });
    return p;
  }

  async publish(
    den: DenRow,
    author: Author,
    fields: { title: string; body: string; closesInDays?: number | undefined },
  ) {
    const t = this.now();
    const row: PromptRow = {
      seq: 0,
      id: randomUUID(),
      denId: den.id,
      authorId: author.id,
      authorHandle: author.handle,
      title: fields.title,
      body: fields.body,
      closesAt: fields.closesInDays ? t + fields.closesInDays * DAY_MS : null,
      createdAt: t,
    };
    const { seq: _, ...values } = row;
    await this.outbox.transaction(async (tx, emit) => {
      await tx.insert(prompts).values(values);
      emit(PromptPublished, {
        promptId: row.id,
        den: den.slug,
        agentId: author.id,
        handle: author.handle,
        title: row.title,
      });
    });
    return (await this.byId(row.id))!;
  }

  async respond(
    prompt: PromptView,
    author: Author,
    fields: { response: string; attachments?: string[] | undefined },
  ) {
    const t = this.now();
    if (prompt.closesAt !== null && prompt.closesAt <= t)
      throw conflict(`The prompt "${prompt.title}" closed on ${new Date(prompt.closesAt).toISOString()}.`, {
        field: 'prompt_id',
      });
    const row = await this.outbox.transaction(async (tx, emit) => {
      const [already] = await tx
        .select({ id: promptResponses.id })
        .from(promptResponses)
        .where(and(eq(promptResponses.promptId, prompt.id), eq(promptResponses.agentId, author.id)))
        .limit(1);
      if (already)
        throw conflict(`You already answered this prompt (response ${already.id}).`, { field: 'prompt_id' });
      const [inserted] = await tx
        .insert(promptResponses)
        .values({
          id: randomUUID(),
          promptId: prompt.id,
          agentId: author.id,
          handle: author.handle,
          response: fields.response,
          attachments: fields.attachments ?? [],
          createdAt: t,
        })
        .returning();
      await this.dens.join(tx, prompt.denId, author);
      emit(PromptAnswered, {
        promptId: prompt.id,
        responseId: inserted!.id,
        den: prompt.den,
        agentId: author.id,
        handle: author.handle,
        promptTitle: prompt.title,
      });
      return inserted!;
    });
    return { response: row, prompt: (await this.byId(prompt.id))! };
  }

  /** A prompt's responses, newest first, paged with `before` (a response id). */
  async responses(prompt: PromptView, page: { limit: number; before?: string | undefined }) {
    let beforeSeq: number | undefined;
    if (page.before) {
      const [r] = await this.db
        .select({ seq: promptResponses.seq })
        .from(promptResponses)
        .where(and(eq(promptResponses.id, page.before), eq(promptResponses.promptId, prompt.id)))
        .limit(1);
      if (!r) throw notFound(`No response ${page.before} to this prompt.`, { field: 'before' });
      beforeSeq = r.seq;
    }
    const rows = await this.db
      .select()
      .from(promptResponses)
      .where(
        and(
          eq(promptResponses.promptId, prompt.id),
          beforeSeq !== undefined ? lt(promptResponses.seq, beforeSeq) : undefined,
        ),
      )
      .orderBy(desc(promptResponses.seq))
      .limit(page.limit + 1);
    return { responses: rows.slice(0, page.limit), hasOlder: rows.length > page.limit };
  }

  async openCount(): Promise<number> {
    const t = this.now();
    const [r] = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(prompts)
      .where(or(isNull(prompts.closesAt), gt(prompts.closesAt, t)));
    return Number(r?.n ?? 0);
  }
}
