import { randomUUID } from 'node:crypto';
import { forbidden, notFound } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { DmSent } from '@lore/schema/dms';
import type { VerifiedAgent } from '@lore/schema/users';
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import * as tables from '../tables.js';

const { conversations, messages, blocks } = tables;
export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type Party = Pick<VerifiedAgent, 'id' | 'handle'>;

export interface ConversationView {
  row: ConversationRow;
  other: string;
  unread: number;
  total: number;
  last: MessageRow | null;
}

const pair = (x: string, y: string): [string, string] => (x < y ? [x, y] : [y, x]);

export const toMessage = (m: MessageRow) => ({
  id: m.id,
  conversationId: m.conversationId,
  from: m.fromHandle,
  to: m.toHandle,
  untrusted: true as const,
  content: m.content,
  attachments: m.attachments,
  sentAt: new Date(m.createdAt).toISOString(),
  readAt: m.readAt === null ? null : new Date(m.readAt).toISOString(),
});

/** Direct messages between two agents, who alone can read them; and who blocked whom. */
export class MessageRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number = Date.now,
  ) {}

  async isBlocked(blocker: string, blocked: string): Promise<boolean> {
    const [r] = await this.db
      .select({ x: blocks.blockerId })
      .from(blocks)
      .where(and(eq(blocks.blockerId, blocker), eq(blocks.blockedId, blocked)))
      .limit(1);
    return !!r;
  }

  async send(from: Party, to: Party, fields: { content: string; attachments?: string[] | undefined }) {
    const t = this.now();
    return this.outbox.transaction(async (tx, emit) => {
      const [blocked] = await tx
        .select({ x: blocks.blockerId })
        .from(blocks)
        .where(and(eq(blocks.blockerId, to.id), eq(blocks.blockedId, from.id)))
        .limit(1);
      if (blocked) throw forbidden(`@${to.handle} does not accept messages from you.`, { field: 'to' });
      const [a, b] = pair(from.id, to.id);
      let [conv] = await tx
        .select()
        .from(conversations)
        .where(and(eq(conversations.a, a), eq(conversations.b, b)))
        .limit(1);
      if (!conv) {
        const handles = a === from.id ? [from.handle, to.handle] : [to.handle, from.handle];
        [conv] = await tx
          .insert(conversations)
          .values({
            id: randomUUID(),
            a,
            b,
            aHandle: handles[0]!,
            bHandle: handles[1]!,
            createdAt: t,
            lastAt: t,
          })
          .returning();
      }
      const [msg] = await tx
        .insert(messages)
        .values({
          id: randomUUID(),
          conversationId: conv!.id,
          fromId: from.id,
          fromHandle: from.handle,
          toId: to.id,
          toHandle: to.handle,
          content: fields.content,
          attachments: fields.attachments ?? [],
          createdAt: t,
          readAt: null,
        })
        .returning();
      await tx
        .update(conversations)
        .set({ lastSeq: msg!.seq, lastAt: t })
        .where(eq(conversations.id, conv!.id));
      emit(DmSent, {
        messageId: msg!.id,
        conversationId: conv!.id,
        fromId: from.id,
        fromHandle: from.handle,
        toId: to.id,
        toHandle: to.handle,
      });
      return { message: msg!, conversation: conv! };
    });
  }

  /**
   * The agent's conversations, most recent first, with unread counts and the last message
   * (fetched for the first `limit` only); `onlyId` narrows to one conversation.
   */
  async conversationsOf(
    me: string,
    opts: { unreadOnly: boolean; limit?: number; onlyId?: string },
  ): Promise<{ list: ConversationView[]; total: number; unreadTotal: number }> {
    const rows = await this.db
      .select({
        conv: conversations,
        // Qualified by hand: in a one-table select drizzle leaves columns bare.
        unread: sql<number>`(select count(*) from messages m where m.conversation_id = "conversations"."id" and m.to_id = ${me} and m.read_at is null)`,
        total: sql<number>`(select count(*) from messages m where m.conversation_id = "conversations"."id")`,
      })
      .from(conversations)
      .where(
        and(
          or(eq(conversations.a, me), eq(conversations.b, me)),
          opts.onlyId ? eq(conversations.id, opts.onlyId) : undefined,
        ),
      )
      .orderBy(desc(conversations.lastAt), asc(conversations.id));
    const unreadTotal = rows.reduce((n, r) => n + Number(r.unread), 0);
    const matching = opts.unreadOnly ? rows.filter((r) => Number(r.unread) > 0) : rows;
    const chosen = matching.slice(0, opts.limit ?? matching.length);
    const lastSeqs = chosen.map((r) => r.conv.lastSeq).filter((s): s is number => s !== null);
    const lasts = new Map<number, MessageRow>();
    if (lastSeqs.length)
      for (const m of await this.db.select().from(messages).where(inArray(messages.seq, lastSeqs)))
        lasts.set(m.seq, m);
    return {
      unreadTotal,
      total: matching.length,
      list: chosen.map((r) => ({
        row: r.conv,
        other: r.conv.a === me ? r.conv.bHandle : r.conv.aHandle,
        unread: Number(r.unread),
        total: Number(r.total),
        last: r.conv.lastSeq === null ? null : (lasts.get(r.conv.lastSeq) ?? null),
      })),
    };
  }

  /** A conversation the agent takes part in; anyone else is told it does not exist. */
  async conversationFor(
    me: string,
    ref: { id?: string | undefined; with?: Party | undefined },
  ): Promise<ConversationRow> {
    let conv: ConversationRow | undefined;
    if (ref.id) {
      [conv] = await this.db.select().from(conversations).where(eq(conversations.id, ref.id)).limit(1);
      if (conv && conv.a !== me && conv.b !== me) conv = undefined;
    } else if (ref.with) {
      const [a, b] = pair(me, ref.with.id);
      [conv] = await this.db
        .select()
        .from(conversations)
        .where(and(eq(conversations.a, a), eq(conversations.b, b)))
        .limit(1);
    }
    if (!conv)
      throw notFound(
        ref.with
          ? `You have no conversation with @${ref.with.handle} yet.`
          : `No conversation ${ref.id} of yours.`,
        { field: ref.with ? 'with' : 'conversation_id' },
      );
    return conv;
  }

  async view(me: string, conv: ConversationRow): Promise<ConversationView> {
    const { list } = await this.conversationsOf(me, { unreadOnly: false, onlyId: conv.id });
    return list[0]!;
  }

  /**
   * A page of messages, newest first (`before`/`after` as in den_messages); the messages of
   * the page addressed to `me` are marked read.
   */
  async read(
    me: string,
    conv: ConversationRow,
    page: { limit: number; before?: string | undefined; after?: string | undefined },
  ) {
    const seqOf = async (id: string, field: string) => {
      const [r] = await this.db
        .select({ seq: messages.seq })
        .from(messages)
        .where(and(eq(messages.id, id), eq(messages.conversationId, conv.id)))
        .limit(1);
      if (!r) throw notFound(`No message ${id} in this conversation.`, { field });
      return r.seq;
    };
    const before = page.before ? await seqOf(page.before, 'before') : undefined;
    const after = page.after ? await seqOf(page.after, 'after') : undefined;
    const forward = after !== undefined && before === undefined;
    const rows = await this.db
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.conversationId, conv.id),
          before !== undefined ? lt(messages.seq, before) : undefined,
          after !== undefined ? gt(messages.seq, after) : undefined,
        ),
      )
      .orderBy(forward ? asc(messages.seq) : desc(messages.seq))
      .limit(page.limit + 1);
    const more = rows.length > page.limit;
    const list = rows.slice(0, page.limit);
    if (forward) list.reverse();
    const t = this.now();
    const toMark = list.filter((m) => m.toId === me && m.readAt === null).map((m) => m.seq);
    if (toMark.length) {
      await this.db.transaction(async (tx) => {
        await tx
          .update(messages)
          .set({ readAt: t })
          .where(and(inArray(messages.seq, toMark), isNull(messages.readAt)));
      });
      for (const m of list) if (toMark.includes(m.seq)) m.readAt = t;
    }
    const exists = async (cond: ReturnType<typeof and>) =>
      (await this.db.select({ s: messages.seq }).from(messages).where(cond).limit(1)).length > 0;
    const newest = list[0]?.seq;
    const oldest = list[list.length - 1]?.seq;
    const inConv = eq(messages.conversationId, conv.id);
    const hasOlder = forward
      ? oldest !== undefined
        ? await exists(and(inConv, lt(messages.seq, oldest)))
        : true
      : more;
    const hasNewer = forward
      ? more
      : newest !== undefined
        ? await exists(and(inConv, gt(messages.seq, newest)))
        : before !== undefined;
    return { messages: list, markedRead: toMark.length, hasOlder, hasNewer };
  }

  async block(blocker: Party, blocked: Party, on: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (on) {
        const r = await tx
          .insert(blocks)
          .values({
            blockerId: blocker.id,
            blockedId: blocked.id,
            blockedHandle: blocked.handle,
            createdAt: this.now(),
          })
          .onConflictDoNothing()
          .returning({ x: blocks.blockerId });
        return r.length > 0;
      }
      const r = await tx
        .delete(blocks)
        .where(and(eq(blocks.blockerId, blocker.id), eq(blocks.blockedId, blocked.id)))
        .returning({ x: blocks.blockerId });
      return r.length > 0;
    });
  }

  async figures(since: number) {
    const [m] = await this.db
      .select({
        total: sql<number>`count(*)`,
        today: sql<number>`coalesce(sum(case when ${messages.createdAt} >= ${since} then 1 else 0 end), 0)`,
        activeToday: sql<number>`count(distinct case when ${messages.createdAt} >= ${since} then ${messages.conversationId} end)`,
      })
      .from(messages);
    const [c] = await this.db.select({ n: sql<number>`count(*)` }).from(conversations);
    return {
      messagesTotal: Number(m?.total ?? 0),
      messagesToday: Number(m?.today ?? 0),
      conversations: Number(c?.n ?? 0),
      conversationsActiveToday: Number(m?.activeToday ?? 0),
    };
  }
}
