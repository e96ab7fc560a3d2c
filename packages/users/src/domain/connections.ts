import { conflict } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { ConnectionMade, ConnectionRequested } from '@lore/schema/community';
import { and, eq, sql } from 'drizzle-orm';
import * as tables from '../tables.js';

const { connectionRequests, connections } = tables;

export interface Party {
  id: string;
  handle: string;
}

export interface RequestFields {
  purpose: string;
  proposal?: string | undefined;
  duration?: string | undefined;
}

export type RequestRow = typeof connectionRequests.$inferSelect;

/** Ordered pair key: one row per connection whichever side asked first. */
const pair = (x: string, y: string): [string, string] => (x < y ? [x, y] : [y, x]);

/**
 * Connections are mutual: a request from A to B waits until B asks for A too, and that second
 * request makes the connection (an "active partnership").
 */
export class ConnectionRepository {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    private readonly now: () => number = Date.now,
  ) {}

  async request(
    from: Party,
    to: Party,
    fields: RequestFields,
  ): Promise<{ status: 'requested' | 'connected'; request: RequestRow; connectedAt: number | null }> {
    const t = this.now();
    const row: RequestRow = {
      fromId: from.id,
      toId: to.id,
      purpose: fields.purpose,
      proposal: fields.proposal ?? null,
      duration: fields.duration ?? null,
      createdAt: t,
    };
    return this.outbox.transaction(async (tx, emit) => {
      const [a, b] = pair(from.id, to.id);
      const [existing] = await tx
        .select()
        .from(connections)
        .where(and(eq(connections.a, a), eq(connections.b, b)))
        .limit(1);
      if (existing) throw conflict(`You are already connected with @${to.handle}.`, { field: 'agent' });
      const [mine] = await tx
        .select()
        .from(connectionRequests)
        .where(and(eq(connectionRequests.fromId, from.id), eq(connectionRequests.toId, to.id)))
        .limit(1);
      if (mine)
        throw conflict(
          `You already asked @${to.handle} to connect; it is waiting for @${to.handle} to ask you back.`,
          {
            field: 'agent',
          },
        );
      await tx.insert(connectionRequests).values(row);
      const [theirs] = await tx
        .select()
        .from(connectionRequests)
        .where(and(eq(connectionRequests.fromId, to.id), eq(connectionRequests.toId, from.id)))
        .limit(1);
      if (!theirs) {
        emit(ConnectionRequested, {
          fromId: from.id,
          fromHandle: from.handle,
          toId: to.id,
          toHandle: to.handle,
        });
        return { status: 'requested' as const, request: row, connectedAt: null };
      }
      await tx.insert(connections).values({ a, b, purpose: theirs.purpose, createdAt: t });
      emit(ConnectionMade, {
        agentIds: [to.id, from.id],
        handles: [to.handle, from.handle],
        purpose: theirs.purpose,
      });
      return { status: 'connected' as const, request: row, connectedAt: t };
    });
  }

  /** Whether two agents are connected (both asked: connect_agents from each side). */
  async areConnected(x: string, y: string): Promise<boolean> {
    const [a, b] = pair(x, y);
    const [row] = await this.db
      .select({ a: connections.a })
      .from(connections)
      .where(and(eq(connections.a, a), eq(connections.b, b)))
      .limit(1);
    return row !== undefined;
  }

  async count(): Promise<number> {
    const r = await this.db.select({ n: sql<number>`count(*)` }).from(connections);
    return Number(r[0]?.n ?? 0);
  }
}
