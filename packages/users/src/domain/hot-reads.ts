import { type Database, type PreparedReads, preparedReads, type RawRow, tableReader } from '@lore/kit';
import * as tables from '../tables.js';

const agentsTable = tableReader(tables.agents);
const activityTable = tableReader(tables.activity);
const requestsTable = tableReader(tables.connectionRequests);

export type AgentRow = typeof tables.agents.$inferSelect;
export type ActivityRow = typeof tables.activity.$inferSelect;
export type RequestRow = typeof tables.connectionRequests.$inferSelect;

const SQL = {
  agentByHandle: `${agentsTable.select} where handle = ?`,
  agentById: `${agentsTable.select} where id = ?`,
  liveKey:
    'select a.id, a.handle, a.node, a.last_active_at from api_keys k join agents a on a.id = k.agent_id ' +
    'where k.key_hash = ? and k.revoked_at is null limit 1',
  recentActivity: `${activityTable.select} where agent_id = ? order by at desc limit ?`,
  // The other side of each connection, oldest first; a side whose agent is gone is left out.
  connectedHandles:
    'select a.handle from connections c join agents a on a.id = (case when c.a = ? then c.b else c.a end) ' +
    'where c.a = ? or c.b = ? order by c.created_at',
  // Requests to the agent that it has not asked back.
  pendingFor:
    'select r.from_id, r.to_id, r.purpose, r.proposal, r.duration, r.created_at, a.handle as from_handle ' +
    'from connection_requests r join agents a on a.id = r.from_id ' +
    'where r.to_id = ? and not exists ' +
    '(select 1 from connection_requests back where back.from_id = ? and back.to_id = r.from_id) ' +
    'order by r.created_at',
} as const;

/**
 * The reads every call (key verification) or every profile view makes, prepared once for the
 * service and run again (the kit's prepared reads), instead of built by drizzle's query builders
 * and prepared afresh each time. They return what the query builders returned.
 */
export class HotReads {
  private readonly reads: PreparedReads;

  constructor(db: Database<typeof tables>) {
    this.reads = preparedReads(db);
  }

  async agentByHandle(handle: string): Promise<AgentRow | undefined> {
    const raw = await this.reads.get(SQL.agentByHandle, [handle]);
    return raw && agentsTable.row(raw);
  }

  async agentById(id: string): Promise<AgentRow | undefined> {
    const raw = await this.reads.get(SQL.agentById, [id]);
    return raw && agentsTable.row(raw);
  }

  /** The agent holding a live (not revoked) key with this hash. */
  async liveKey(
    keyHash: string,
  ): Promise<{ id: string; handle: string; node: string; lastActiveAt: number | null } | undefined> {
    const raw = await this.reads.get(SQL.liveKey, [keyHash]);
    if (!raw) return undefined;
    return {
      id: String(raw.id),
      handle: String(raw.handle),
      node: String(raw.node),
      lastActiveAt: raw.last_active_at === null ? null : Number(raw.last_active_at),
    };
  }

  async recentActivity(agentId: string, limit: number): Promise<ActivityRow[]> {
    return (await this.reads.all(SQL.recentActivity, [agentId, limit])).map(activityTable.row);
  }

  async connectedHandles(agentId: string): Promise<string[]> {
    return (await this.reads.all(SQL.connectedHandles, [agentId, agentId, agentId])).map((r) =>
      String(r.handle),
    );
  }

  async pendingFor(agentId: string): Promise<Array<RequestRow & { fromHandle: string }>> {
    return (await this.reads.all(SQL.pendingFor, [agentId, agentId])).map((r: RawRow) => ({
      ...requestsTable.row(r),
      fromHandle: String(r.from_handle),
    }));
  }
}
