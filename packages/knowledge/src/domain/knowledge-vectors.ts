import type { Database } from '@lore/kit/db';
import { float32FromBuffer, nearestSql, similarityOfSql, VectorMatrix, vectorParam } from '@lore/search';
import { sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { VECTOR_DIMENSIONS, vectorColumn } from '../tables.js';
import { type AgentCaches, type AgentVectors, VECTORS_FRESH_MS } from './agent-caches.js';
import { revision } from './agent-scope.js';

/** An agent's chunk vectors: nearest neighbours and similarities, by the database or an in-process copy. */

type Db = Database<typeof tables>;

/**
 * The agent's `k` chunks nearest the question in its in-process copy (agents over
 * `DB_SCAN_MAX` chunks). A source filter keeps the hits of that source's id range.
 */
export function nearestInMemory(
  vectors: AgentVectors,
  query: Float32Array,
  k: number,
  source: string | undefined,
): Array<{ id: number; similarity: number }> {
  // The source's chunks are checked by the candidate rows (ranker.candidates filters by source).
  return vectors.matrix.nearest(query, source ? k * 4 : k);
}

/**
 * The agent's vectors of the embedder's model, for agents over `DB_SCAN_MAX` chunks: read from
 * the database once and kept until its chunks change, this process writes vectors for it, or
 * `VECTORS_FRESH_MS` pass (another replica's vectors).
 */
export async function agentVectors(
  db: Db,
  caches: AgentCaches,
  model: string,
  agentId: string,
  summary: Record<string, unknown> | undefined,
): Promise<AgentVectors> {
  const rev = `${revision(summary)}:${caches.vectorRevision(agentId)}`;
  const cached = caches.vectors.get(agentId);
  const complete = cached !== undefined && cached.matrix.size >= Number(summary?.n ?? 0);
  if (cached?.rev === rev && (complete || performance.now() - cached.at < VECTORS_FRESH_MS)) return cached;
  const rs = await db.$client.execute({
    sql: 'select id, vector, embedding from chunks where agent_id = ? and embedding_model = ? and (vector is not null or embedding is not null)',
    args: [agentId, model],
  });
  const rows = rs.rows.map(
    (r) => [Number(r.id), float32FromBuffer((r.vector ?? r.embedding) as ArrayBuffer)] as const,
  );
  // One model's vectors share a dimension; a row of another is left out (never compared).
  const matrix = new VectorMatrix(rows[0]?.[1].length ?? VECTOR_DIMENSIONS, rows.length);
  for (const [id, vector] of rows) matrix.add(id, vector);
  const entry: AgentVectors = { rev, at: performance.now(), matrix };
  caches.vectors.set(agentId, entry);
  return entry;
}

/** Whether the agent has a chunk with a vector of the embedder's model (one indexed row read). */
export async function hasVectors(db: Db, agentId: string, model: string): Promise<boolean> {
  const rows = await db.all<{ one: number }>(
    sql`select 1 as one from chunks where agent_id = ${agentId} and embedding_model = ${model} limit 1`,
  );
  return rows.length > 0;
}

/**
 * The agent's `k` chunks nearest the question, by the database (`vector_distance_cos` over the
 * agent's vectors of the embedder's model, found through the agent index), best first.
 */
export async function nearestByDatabase(
  db: Db,
  model: string,
  agentId: string,
  query: Float32Array,
  k: number,
  source: string | undefined,
): Promise<Array<{ id: number; similarity: number }>> {
  const column = vectorColumn(query.length);
  const where = source
    ? 'agent_id = ? and embedding_model = ? and source_id = (select id from sources where agent_id = ? and name = ?)'
    : 'agent_id = ? and embedding_model = ?';
  const args = source
    ? [vectorParam(query), agentId, model, agentId, source]
    : [vectorParam(query), agentId, model];
  const rs = await db.$client.execute({
    sql: nearestSql({ table: 'chunks', column, id: 'id', where, k }),
    args,
  });
  return rs.rows.map((r) => ({ id: Number(r.id), similarity: Number(r.similarity) }));
}

/** The similarity of these chunks of the agent to the question (those with a vector of the model). */
export async function similarityOf(
  db: Db,
  model: string,
  agentId: string,
  query: Float32Array,
  ids: number[],
): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const column = vectorColumn(query.length);
  const rs = await db.$client.execute({
    sql: similarityOfSql(
      { table: 'chunks', column, id: 'id', where: 'agent_id = ? and embedding_model = ?' },
      ids.length,
    ),
    args: [vectorParam(query), ...ids, agentId, model],
  });
  return new Map(rs.rows.map((r) => [Number(r.id), Number(r.similarity)]));
}
