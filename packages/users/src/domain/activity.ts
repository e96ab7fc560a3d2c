import { handleOnce } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { EventEnvelope } from '@lore/schema/events';
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import * as tables from '../tables.js';

const { agents, activity, sourceTopics } = tables;

export interface ActivityEntry {
  agentId: string;
  kind: string;
  summary: string;
}

/**
 * What the users service learns from the other services' events: each agent's recent
 * activity and when it was last active, and the topics of its knowledge sources. Every
 * method applies one event once per consumer, however often it is delivered.
 */
export class ActivityLog {
  constructor(private readonly db: Database<typeof tables>) {}

  /** Record what the event says the agents did, and move their "last active" forward. */
  async record(consumer: string, event: EventEnvelope, entries: ActivityEntry[]): Promise<boolean> {
    const at = Date.parse(event.occurredAt) || Date.now();
    return handleOnce(this.db, consumer, event, async (tx) => {
      for (const [i, e] of entries.entries()) {
        await tx
          .insert(activity)
          .values({
            eventId: entries.length > 1 ? `${event.id}:${i}` : event.id,
            agentId: e.agentId,
            kind: e.kind,
            summary: e.summary,
            at,
          })
          .onConflictDoNothing();
        await tx
          .update(agents)
          .set({ lastActiveAt: at })
          .where(and(eq(agents.id, e.agentId), or(isNull(agents.lastActiveAt), lt(agents.lastActiveAt, at))));
      }
    });
  }

  async setTopics(
    consumer: string,
    event: EventEnvelope,
    t: { agentId: string; source: string; keywords: string[]; sharing: string; summary: string },
  ) {
    const at = Date.parse(event.occurredAt) || Date.now();
    // Words extracted from a source that is not shared auto are never kept here.
    const keywords = t.sharing === 'auto' ? t.keywords : [];
    const fields = { keywords, sharing: t.sharing, summary: t.summary, updatedAt: at };
    return handleOnce(this.db, consumer, event, async (tx) => {
      await tx
        .insert(sourceTopics)
        .values({ agentId: t.agentId, source: t.source, ...fields })
        .onConflictDoUpdate({ target: [sourceTopics.agentId, sourceTopics.source], set: fields });
    });
  }

  async removeTopics(consumer: string, event: EventEnvelope, t: { agentId: string; source: string }) {
    return handleOnce(this.db, consumer, event, async (tx) => {
      await tx
        .delete(sourceTopics)
        .where(and(eq(sourceTopics.agentId, t.agentId), eq(sourceTopics.source, t.source)));
    });
  }

  /** The latest activity of each of these agents. */
  async latestOf(agentIds: string[]): Promise<Map<string, { kind: string; summary: string; at: number }>> {
    const out = new Map<string, { kind: string; summary: string; at: number }>();
    for (let i = 0; i < agentIds.length; i += 500) {
      // SQLite answers bare columns from the row that holds the max().
      const rows = await this.db
        .select({
          agentId: activity.agentId,
          kind: activity.kind,
          summary: activity.summary,
          at: sql<number>`max(${activity.at})`,
        })
        .from(activity)
        .where(inArray(activity.agentId, agentIds.slice(i, i + 500)))
        .groupBy(activity.agentId);
      for (const r of rows) out.set(r.agentId, { kind: r.kind, summary: r.summary, at: Number(r.at) });
    }
    return out;
  }

  /**
   * Every agent's public knowledge words, for discovery: the names and the owner's summaries of
   * sources shared auto — never words extracted from a source.
   */
  async allTopics(): Promise<Map<string, string[]>> {
    const rows = await this.db.select().from(sourceTopics).where(eq(sourceTopics.sharing, 'auto'));
    const out = new Map<string, string[]>();
    for (const r of rows)
      out.set(r.agentId, [...(out.get(r.agentId) ?? []), ...publicWords(r.source, r.summary)]);
    return out;
  }
}

/** "typescript_notes.md" and "My notes on generics" → the words a peer may see. */
export function publicWords(source: string, summary: string): string[] {
  const name = source.replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[._-]+/g, ' ');
  return [name, summary].filter((w) => w.trim().length > 0);
}
