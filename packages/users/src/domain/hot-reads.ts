import { type Database, type PreparedReads, preparedReads, type RawRow, tableReader } from '@lore/kit';
import { getTableColumns } from 'drizzle-orm';
import * as tables from '../tables.js';

const agentsTable = tableReader(tables.agents);
const activityTable = tableReader(tables.activity);
const requestsTable = tableReader(tables.connectionRequests);

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

type PendingTuple = [string, string, string | null, string | null, number];

/** The agent's columns in a profile view's row; the three lists follow. */
const AGENT_COLUMNS = Object.keys(getTableColumns(tables.agents)).length;

/**
 * The agent's columns as `tableReader` selects them, then the three lists as JSON arrays of
 * arrays (see `SQL.profileView`). Each list carries its sort key and is sorted again in
 * JavaScript: an aggregate's input order is not promised without `json_group_array(... ORDER
 * BY ...)`, which SQLite has since 3.44 but a libSQL server's parser refuses.
 */
const profileColumns =
  agentsTable.select.replace(/ from "agents"$/, '').replace(/"([a-z_]+)"/g, 'p."$1"') +
  ', (select json_group_array(json_array(x.kind, x.summary, x.at, x.rid)) from ' +
  '(select kind, summary, at, rowid as rid from activity where agent_id = p.id order by at desc, rowid desc limit ?) x) ' +
  'as recent_json, ' +
  '(select json_group_array(json_array(x.handle, x.created_at)) from ' +
  '(select a.handle, c.created_at from connections c join agents a on a.id = (case when c.a = p.id then c.b else c.a end) ' +
  'where c.a = p.id or c.b = p.id order by c.created_at) x) as connected_json, ' +
  'case when p.id = ? then (select json_group_array(json_array(x.handle, x.purpose, x.proposal, x.duration, x.created_at)) from ' +
  '(select a.handle, r.purpose, r.proposal, r.duration, r.created_at from connection_requests r join agents a on a.id = r.from_id ' +
  'where r.to_id = p.id and not exists ' +
  '(select 1 from connection_requests back where back.from_id = p.id and back.to_id = r.from_id) ' +
  'order by r.created_at) x) end as pending_json';

export const SQL = {
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
  // What a profile view reads (agent_profile), in one statement: the agent by handle and, as JSON
  // arrays, its recent activity, the handles of its connections and, when the viewer is the agent
  // (CASE runs the subquery only then), the requests waiting for its answer. Each list comes in
  // the order recentActivity, connectedHandles and pendingFor give theirs. One statement instead of
  // four reads: the agent and its lists come from one snapshot, and one row crosses into
  // JavaScript (BENCHMARKS.md, "The profile read in one statement").
  profileView: `${profileColumns} from agents p where p.handle = ?`,
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

  /**
   * The agent with this handle, its `recentLimit` latest activities, its connections' handles
   * and, when `viewerId` is the agent's, the requests waiting for its answer (else none): what
   * agentByHandle, recentActivity, connectedHandles and pendingFor return, in one statement.
   */
  async profileView(handle: string, viewerId: string, recentLimit: number): Promise<ProfileView | undefined> {
    const v = await this.reads.values(SQL.profileView, [recentLimit, viewerId, handle]);
    if (!v) return undefined;
    const n = AGENT_COLUMNS;
    // Latest first, ties as the index holds them (the later row first), as recentActivity.
    const recent = (JSON.parse(String(v[n])) as Array<[string, string, number, number]>).sort(
      (x, y) => y[2] - x[2] || y[3] - x[3],
    );
    // Oldest first (a stable sort keeps the statement's order among ties).
    const connected = (JSON.parse(String(v[n + 1])) as Array<[string, number]>).sort((x, y) => x[1] - y[1]);
    const pending =
      v[n + 2] === null ? [] : (JSON.parse(String(v[n + 2])) as PendingTuple[]).sort((x, y) => x[4] - y[4]);
    return {
      agent: agentsTable.fromValues(v),
      recent: recent.map(([kind, summary, at]) => ({ kind, summary, at })),
      connections: connected.map(([handle]) => handle),
      pending: pending.map(([fromHandle, purpose, proposal, duration, createdAt]) => ({
        fromHandle,
        purpose,
        proposal,
        duration,
        createdAt,
      })),
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
