import { type Database, type PreparedReads, preparedReads, preparedSelect } from '@lore/kit/db';
import { and, desc, eq, isNull, notExists, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { LRUCache } from 'lru-cache';
import * as tables from '../tables.js';

export type AgentRow = typeof tables.agents.$inferSelect;
export type ActivityRow = typeof tables.activity.$inferSelect;
export type RequestRow = typeof tables.connectionRequests.$inferSelect;

/** An agent's profile as agent_profile shows it (see `HotReads.profileView`). */
export interface ProfileView {
  agent: AgentRow;
  recent: Array<Pick<ActivityRow, 'kind' | 'summary' | 'at'>>;
  connections: string[];
  pending: Array<
    Pick<RequestRow, 'purpose' | 'proposal' | 'duration' | 'createdAt'> & { fromHandle: string }
  >;
}

const { agents, apiKeys, activity, connections, connectionRequests } = tables;
const back = alias(connectionRequests, 'back');
const id = sql.placeholder('id');

/**
 * The reads every call (key verification) or profile view makes: drizzle's prepared selects, run
 * on the service's prepared reads (`preparedSelect`), which keep each statement instead of
 * preparing it afresh on every call and return what drizzle's own `get` and `all` return.
 */
function prepare(db: Database<typeof tables>) {
  const reads = preparedReads(db);
  const fast = <P extends Parameters<typeof preparedSelect>[1]>(p: P) => preparedSelect(reads, p);
  return {
    agentByHandle: fast(
      db
        .select()
        .from(agents)
        .where(eq(agents.handle, sql.placeholder('handle')))
        .prepare(),
    ),
    agentById: fast(db.select().from(agents).where(eq(agents.id, id)).prepare()),
    liveKey: fast(
      db
        .select({
          id: agents.id,
          handle: agents.handle,
          node: agents.node,
          lastActiveAt: agents.lastActiveAt,
        })
        .from(apiKeys)
        .innerJoin(agents, eq(agents.id, apiKeys.agentId))
        .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
        .limit(1)
        .prepare(),
    ),
    recentActivity: fast(
      db
        .select()
        .from(activity)
        .where(eq(activity.agentId, id))
        .orderBy(desc(activity.at))
        .limit(sql.placeholder('limit'))
        .prepare(),
    ),
    // The other side of each connection, oldest first; a side whose agent is gone is left out.
    connectedHandles: fast(
      db
        .select({ handle: agents.handle })
        .from(connections)
        .innerJoin(
          agents,
          eq(
            agents.id,
            sql`case when ${connections.a} = ${id} then ${connections.b} else ${connections.a} end`,
          ),
        )
        .where(or(eq(connections.a, id), eq(connections.b, id)))
        .orderBy(connections.createdAt)
        .prepare(),
    ),
    // Requests to the agent that it has not asked back.
    pendingFor: fast(
      db
        .select({ request: connectionRequests, fromHandle: agents.handle })
        .from(connectionRequests)
        .innerJoin(agents, eq(agents.id, connectionRequests.fromId))
        .where(
          and(
            eq(connectionRequests.toId, id),
            notExists(
              db
                .select({ one: sql`1` })
                .from(back)
                .where(and(eq(back.fromId, id), eq(back.toId, connectionRequests.fromId))),
            ),
          ),
        )
        .orderBy(connectionRequests.createdAt)
        .prepare(),
    ),
  };
}

/** Profile views kept until the database changes (see `HotReads.profileView`). */
const MAX_VIEWS = 1_000;

/** The users service's per-call reads, prepared once per database. */
export class HotReads {
  private readonly q: ReturnType<typeof prepare>;
  private readonly reads: PreparedReads;
  private readonly views = new LRUCache<string, { version: number; view: ProfileView | undefined }>({
    max: MAX_VIEWS,
  });

  constructor(db: Database<typeof tables>) {
    this.q = prepare(db);
    this.reads = preparedReads(db);
  }

  agentByHandle(handle: string): Promise<AgentRow | undefined> {
    return this.q.agentByHandle.get({ handle });
  }

  agentById(agentId: string): Promise<AgentRow | undefined> {
    return this.q.agentById.get({ id: agentId });
  }

  /** The agent holding a live (not revoked) key with this hash. */
  liveKey(
    keyHash: string,
  ): Promise<{ id: string; handle: string; node: string; lastActiveAt: number | null } | undefined> {
    return this.q.liveKey.get({ keyHash });
  }

  /**
   * The agent with this handle, its `recentLimit` latest activities, its connections' handles
   * and, when `viewerId` is the agent's, the requests waiting for its answer (else none). Four
   * reads, kept (read-only: callers must not change the view) until any connection commits to
   * the database (its data version moves; read before the four reads, so a commit during them
   * is seen by the next call): each statement costs some 20 µs in libsql, and a profile viewed
   * again costs one instead of four. Over a libSQL server there is no data version: always read.
   */
  async profileView(handle: string, viewerId: string, recentLimit: number): Promise<ProfileView | undefined> {
    const version = await this.reads.dataVersion();
    const key = `${handle}\n${viewerId}\n${recentLimit}`;
    const kept = this.views.get(key);
    if (version !== undefined && kept?.version === version) return kept.view;
    const view = await this.readProfileView(handle, viewerId, recentLimit);
    if (version !== undefined) this.views.set(key, { version, view });
    return view;
  }

  private async readProfileView(
    handle: string,
    viewerId: string,
    recentLimit: number,
  ): Promise<ProfileView | undefined> {
    const agent = await this.agentByHandle(handle);
    if (!agent) return undefined;
    const [recent, connected, pending] = await Promise.all([
      this.recentActivity(agent.id, recentLimit),
      this.connectedHandles(agent.id),
      viewerId === agent.id ? this.pendingFor(agent.id) : [],
    ]);
    return {
      agent,
      recent: recent.map(({ kind, summary, at }) => ({ kind, summary, at })),
      connections: connected,
      pending: pending.map(({ fromHandle, purpose, proposal, duration, createdAt }) => ({
        fromHandle,
        purpose,
        proposal,
        duration,
        createdAt,
      })),
    };
  }

  recentActivity(agentId: string, limit: number): Promise<ActivityRow[]> {
    return this.q.recentActivity.all({ id: agentId, limit });
  }

  async connectedHandles(agentId: string): Promise<string[]> {
    return (await this.q.connectedHandles.all({ id: agentId })).map((r) => r.handle);
  }

  async pendingFor(agentId: string): Promise<Array<RequestRow & { fromHandle: string }>> {
    return (await this.q.pendingFor.all({ id: agentId })).map((r) => ({
      ...r.request,
      fromHandle: r.fromHandle,
    }));
  }
}
