import type { Embedder } from '@lore/ingest';
import { BackgroundWork, type Logger } from '@lore/kit';
import { embeddingText } from './ingest.js';
import type { DocsSearch } from './search.js';
import type { DocsStore } from './store.js';

/** Chunks embedded per call to the embedder. */
export const EMBED_BATCH = 32;
/** After the background work failed outside an embedding (the database), the next try. */
export const EMBED_RETRY_MS = 60_000;

/**
 * Fills in chunk vectors in the background: after an ingest, at start, and when a search sees the
 * corpus changed (another process ingested). An ingest returns as soon as its chunks are
 * searchable by words; each chunk is found by meaning too once its vector is stored. Chunks whose
 * vector is of another model (the model changed) are re-embedded the same way, resumably (the
 * work is "every chunk without a vector of this model", so a restart carries on). The embedder
 * unavailable or failing: the chunks stay lexical, and the next kick tries again.
 */
export class ChunkVectors {
  /** Chunks embedded since the start. */
  embedded = 0;
  private readonly work: BackgroundWork;
  private lastGeneration: string | undefined;

  constructor(
    private readonly store: DocsStore,
    private readonly embedder: Embedder | null,
    private readonly search?: DocsSearch,
    private readonly log?: Logger,
  ) {
    this.work = new BackgroundWork(() => this.fill(), {
      quietMs: 0,
      retryMs: EMBED_RETRY_MS,
      onFailure: (err) => this.log?.warn({ err: (err as Error).message }, 'background embedding stopped'),
    });
  }

  /** Starts the background work (or has it look again once done). */
  kick(): void {
    if (this.embedder) this.work.wake(0);
  }

  /** Kicks when the corpus changed since the last kick (a search's cheap check). */
  async kickIfChanged(): Promise<void> {
    if (!this.embedder || this.work.stopping) return;
    const generation = await this.store.generation();
    if (generation === this.lastGeneration) return;
    this.lastGeneration = generation;
    this.kick();
  }

  /** Resolves when the chunks present are embedded (or the embedder gave up). */
  settled(): Promise<void> {
    return this.work.settled();
  }

  /** Stops after the batch in hand (the service is stopping). */
  close(): Promise<void> {
    return this.work.stop();
  }

  private async fill(): Promise<void> {
    const embedder = this.embedder!;
    let after = 0;
    while (!this.work.stopping) {
      const rows = await this.store.chunksToEmbed(embedder.model, after, EMBED_BATCH);
      if (!rows.length) return;
      after = rows[rows.length - 1]!.id;
      let vectors: Float32Array[];
      try {
        vectors = await embedder.embed(rows.map((r) => embeddingText(r.title, r.headingPath, r.text)));
      } catch (err) {
        this.log?.warn(
          { err: (err as Error).message },
          'embedding failed; chunks without a vector are searched by their words only',
        );
        return;
      }
      const stored = rows.map((r, i) => ({ id: r.id, vector: vectors[i]! }));
      const before = await this.store.vectorGeneration();
      const now = await this.store.setVectors(stored, embedder.model);
      this.search?.vectorsAdded(stored, before, now);
      this.embedded += rows.length;
    }
  }
}
