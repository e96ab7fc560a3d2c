import { type Embedder, LocalEmbedder } from '@lore/embed';
import type { Logger } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { KnowledgeSharing, KnowledgeSourceSummary } from '@lore/schema/knowledge';
import type { VerifiedAgent } from '@lore/schema/users';
import type * as tables from '../tables.js';
import { AgentCaches } from './agent-caches.js';
import type { ExtractedDocument } from './ingest.js';
import { KnowledgeSearcher } from './knowledge-searcher.js';
import type { AddedSource, SearchOutcome } from './knowledge-types.js';
import { type ReindexOptions, reindexKnowledge } from './reindex.js';
import { SENSITIVITY_BATCH, SENSITIVITY_QUIET_MS, SensitivityClassifier } from './sensitivity-classifier.js';
import { SourceIngestor } from './source-ingestor.js';
import { SourceSubjects } from './source-subjects.js';
import { TopicMeaningScorer } from './topic-meaning.js';
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
  /** Keeps each passage's sensitivity current (the model's half, and after a change of rules). */
  readonly sensitivity: SensitivityClassifier;
  /** What each source is about by meaning, for the gate (null answers without a model). */
  readonly subjects: SourceSubjects;
  /** How close the topics of the owner's conditions are to a draft and its passages. */
  readonly meaning: TopicMeaningScorer;

  constructor(
    private readonly db: Database<typeof tables>,
    outbox: Outbox,
    private readonly embedder: Embedder | null,
    log: Logger,
    now: () => number = Date.now,
    /** Chunks of one agent past which its vectors are compared in memory (`DB_SCAN_MAX`). */
    dbScanMax?: number,
    /** How long uploads must pause before their passages are classified (`SENSITIVITY_QUIET_MS`). */
    sensitivityQuietMs = SENSITIVITY_QUIET_MS,
  ) {
    this.ingestor = new SourceIngestor(
      db,
      outbox,
      () => {
        this.vectorizer?.wake();
        this.sensitivity.wake();
      },
      this.caches,
      now,
    );
    this.vectorizer = embedder
      ? new Vectorizer(db, embedder, this.caches, log, () => this.ingestor.busy)
      : undefined;
    this.sensitivity = new SensitivityClassifier(
      db,
      outbox,
      embedder,
      log,
      () => this.ingestor.busy,
      SENSITIVITY_BATCH,
      sensitivityQuietMs,
    );
    this.subjects = new SourceSubjects(db, embedder);
    this.meaning = new TopicMeaningScorer(db, embedder);
    this.searcher = new KnowledgeSearcher(db, embedder, this.caches, log, dbScanMax);
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

  /** The agent's sources, each with how many of its passages hold what (see SensitivityClassifier). */
  async list(agentId: string): Promise<KnowledgeSourceSummary[]> {
    const [sources, counts] = await Promise.all([
      this.ingestor.list(agentId),
      this.sensitivity.countsBySource(agentId),
    ]);
    return sources.map((s) => ({
      ...s,
      sensitivity: counts.get(s.name) ?? {
        credentials: 0,
        contact: 0,
        health: 0,
        money: 0,
        personal: 0,
        unclassified: 0,
      },
    }));
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

  /**
   * Starts computing the vectors chunks are missing (written before, or by another model). A local
   * model whose packages are missing is reported unavailable here (logged), before any search.
   */
  startVectors(): void {
    if (this.embedder instanceof LocalEmbedder) this.embedder.check();
    this.vectorizer?.wake(0);
    this.sensitivity.wake(0);
  }

  /**
   * How search reads meaning, for /readyz and platform_stats: `off` (words only), the local
   * model's state (`unloaded` until first use, `loading`, `ready`, or `unavailable: why`, then
   * words only), or `endpoint` for an OpenAI-compatible one.
   */
  embeddings(): { embeddings: string; embeddingModel: string | null } {
    const e = this.embedder;
    if (!e) return { embeddings: 'off', embeddingModel: null };
    if (!(e instanceof LocalEmbedder)) return { embeddings: 'endpoint', embeddingModel: e.model };
    const state = e.state === 'unavailable' ? `unavailable: ${e.unavailableReason}` : e.state;
    return { embeddings: state, embeddingModel: e.model };
  }

  /** Stops computing vectors and ends the embedder's model thread. */
  async close(): Promise<void> {
    await Promise.all([this.vectorizer?.stop(), this.sensitivity.stop()]);
    await this.embedder?.close?.();
  }

  stats(): Promise<{ sources: number; chunks: number; agents: number }> {
    return this.searcher.stats();
  }
}
