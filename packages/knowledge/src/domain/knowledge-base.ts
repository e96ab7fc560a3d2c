import type { Embedder } from '@lore/embed';
import type { Database, Logger, Outbox } from '@lore/kit';
import type { KnowledgeSharing, KnowledgeSourceSummary } from '@lore/schema/knowledge';
import type { VerifiedAgent } from '@lore/schema/users';
import type * as tables from '../tables.js';
import { AgentCaches } from './agent-caches.js';
import type { ExtractedDocument } from './ingest.js';
import { KnowledgeSearcher } from './knowledge-searcher.js';
import type { AddedSource, SearchOutcome } from './knowledge-types.js';
import { type ReindexOptions, reindexKnowledge } from './reindex.js';
import { SourceIngestor } from './source-ingestor.js';
import { Vectorizer } from './vectorizer.js';

export {
  type AddedSource,
  agentToken,
  type FoundPassage,
  type SearchOutcome,
  SOURCE_KEYWORDS,
} from './knowledge-types.js';

/**
 * Every agent's knowledge sources: chunks, a BM25 index, vectors. Writes go through the
 * ingestor, reads through the searcher; both share the per-agent caches. Vectors follow each
 * write in the background (the vectorizer), when there is an embedder.
 */
export class KnowledgeBase {
  private readonly ingestor: SourceIngestor;
  private readonly searcher: KnowledgeSearcher;
  private readonly caches = new AgentCaches();
  /** Computes the vectors chunks are missing; none without an embedder. */
  readonly vectorizer: Vectorizer | undefined;

  constructor(
    private readonly db: Database<typeof tables>,
    outbox: Outbox,
    private readonly embedder: Embedder | null,
    log: Logger,
    now: () => number = Date.now,
  ) {
    this.ingestor = new SourceIngestor(db, outbox, () => this.vectorizer?.wake(), this.caches, now);
    this.vectorizer = embedder
      ? new Vectorizer(db, embedder, this.caches, log, () => this.ingestor.busy)
      : undefined;
    this.searcher = new KnowledgeSearcher(db, embedder, this.caches, log);
  }

  get hasVectors(): boolean {
    return this.embedder !== null;
  }

  /** Adds a source, or replaces the caller's source of the same name; publishes KnowledgeSourceAdded. */
  add(
    agent: VerifiedAgent,
    doc: ExtractedDocument,
    // Kept for callers: an upload no longer waits on anything it could cancel (vectors come later).
    _signal?: AbortSignal,
    share: { sharing?: KnowledgeSharing; summary?: string } = {},
  ): Promise<AddedSource> {
    return this.ingestor.add(agent, doc, share);
  }

  list(agentId: string): Promise<KnowledgeSourceSummary[]> {
    return this.ingestor.list(agentId);
  }

  /** Removes one of the agent's sources; 404 (the same for "not yours" as for "no such") otherwise. */
  remove(agent: VerifiedAgent, name: string): Promise<{ source: string; chunks: number }> {
    return this.ingestor.remove(agent, name);
  }

  /** The agent's best passages for a query (see `KnowledgeSearcher.search`). */
  search(
    agentId: string,
    text: string,
    opts: { limit: number; source?: string; signal?: AbortSignal; relevantFirst?: boolean },
  ): Promise<SearchOutcome> {
    return this.searcher.search(agentId, text, opts);
  }

  /**
   * Rewrites the FTS indexes when they were written with another stemmer (see
   * `reindexKnowledge`): run in the background at start.
   */
  reindex(opts?: ReindexOptions): Promise<{ chunks: number; articles: number }> {
    return reindexKnowledge(this.db, this.caches, opts);
  }

  /** Starts computing the vectors chunks are missing (written before, or by another model). */
  startVectors(): void {
    this.vectorizer?.wake(0);
  }

  /** Stops computing vectors and ends the embedder's model thread. */
  async close(): Promise<void> {
    await this.vectorizer?.stop();
    await this.embedder?.close?.();
  }

  stats(): Promise<{ sources: number; chunks: number; agents: number }> {
    return this.searcher.stats();
  }
}
