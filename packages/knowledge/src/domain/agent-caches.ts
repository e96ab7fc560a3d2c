import type { VectorMatrix } from '@lore/search';
import { LRUCache } from 'lru-cache';
import type { CorpusStats } from './relevance.js';

/** Agents whose search statistics stay cached. */
const CACHED_AGENTS = 64;
/** Stems whose document frequency an agent's statistics hold, at most (then they start over). */
export const STATS_CACHE_STEMS = 20_000;

/** An agent's BM25 statistics (`df`: the stems met so far), valid for one revision of its chunks. */
export interface AgentStats extends CorpusStats {
  rev: string;
  lo: number;
  hi: number;
  df: Map<string, number>;
  /** At least the rows of the whole FTS table (all agents'), whose IDF FTS5's bm25 uses. */
  tableRows: number;
}

/** The vectors of an agent searched in memory (over `DB_SCAN_MAX` chunks), by chunk id. */
export interface AgentVectors {
  rev: string;
  /** When they were read (`performance.now()`): see `VECTORS_FRESH_MS`. */
  at: number;
  matrix: VectorMatrix;
}

/**
 * How long an agent's in-memory vectors are used without a look at the table. Vectors arrive in
 * the background after an upload; this process's own arrivals refresh the copy at once
 * (`vectorsChanged`), another replica's within this time.
 */
export const VECTORS_FRESH_MS = 30_000;

/**
 * What search keeps per agent between calls, least recently used agents dropped first. Each
 * entry carries the revision of the agent's chunks it was computed for (see `AGENT_SUMMARY`);
 * readers compare it. Vectors are not cached: the database compares them (`vector_distance_cos`).
 */
export class AgentCaches {
  readonly stats = new LRUCache<string, AgentStats>({ max: CACHED_AGENTS });
  /** Only agents over `DB_SCAN_MAX` chunks; a few, each 1.5 kB a chunk (384 float32 values). */
  readonly vectors = new LRUCache<string, AgentVectors>({ max: 4 });
  /**
   * The agent's summary row (`AGENT_SUMMARY`) and the database's data version it was read at:
   * still the agent's summary while no connection has committed since.
   */
  readonly summaries = new LRUCache<string, { version: number; row: Record<string, unknown> | undefined }>({
    max: CACHED_AGENTS,
  });

  /**
   * Moves on when the whole index changed under every agent (a rewrite for a new stemmer):
   * statistics carry the epoch in their revision, so those counted before are taken again.
   */
  epoch = 0;

  /** The FTS index was rewritten: every agent's statistics are stale. */
  forgetAll(): void {
    this.epoch++;
    this.stats.clear();
  }

  /** Vectors written per agent by this process since start: part of the in-memory vectors' revision. */
  private readonly vectorWrites = new Map<string, number>();

  vectorsChanged(agentId: string): void {
    this.vectorWrites.set(agentId, (this.vectorWrites.get(agentId) ?? 0) + 1);
  }

  vectorRevision(agentId: string): number {
    return this.vectorWrites.get(agentId) ?? 0;
  }

  /** The agent's sources changed (statistics check their revision). */
  forget(agentId: string): void {
    this.vectors.delete(agentId);
    this.summaries.delete(agentId);
  }
}
