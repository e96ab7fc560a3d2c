import { type Embedder, EmbedderUnavailableError } from '@lore/embed';
import { BackgroundWork, type Logger } from '@lore/kit';
import type { Database } from '@lore/kit/db';
import { float32ToBuffer } from '@lore/search';
import { sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { VECTOR_DIMENSIONS } from '../tables.js';
import type { AgentCaches } from './agent-caches.js';
import { passageText } from './knowledge-types.js';

/**
 * Chunks embedded per step. The local model takes some 50 ms a short passage and up to about
 * 300 ms a 256-token one on a shared core, so a step is well under a few seconds and a query
 * embedded meanwhile waits for one step at most.
 */
export const VECTOR_BATCH = 8;
/** After a failed step (an endpoint down), the next try. */
export const VECTOR_RETRY_MS = 60_000;
/**
 * How long after an upload the vectors start: uploads in a row (a client adding a folder) are
 * not slowed by the model working between them; it starts once they pause.
 */
export const VECTOR_QUIET_MS = 1_000;

/**
 * What is embedded of a chunk: its heading path above its text, and, for a chunk under no
 * heading, the source's name as its title ("espresso.md" says what a bare note is about).
 */
export function embeddedText(source: string, headingPath: string[], text: string): string {
  if (headingPath.length) {
    // The chunk's own heading line says again what the heading path says.
    const headings = new Set(headingPath.map((h) => h.trim().toLowerCase()));
    const body = text
      .split('\n')
      .filter((line) => {
        const m = /^#{1,6}\s+(.*)$/.exec(line.trim());
        return !(m && headings.has(m[1]!.trim().toLowerCase()));
      })
      .join('\n')
      .trim();
    return passageText(headingPath, body);
  }
  const title = source
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[-_.]+/g, ' ')
    .trim();
  return title ? `${title}\n${text}` : text;
}

/**
 * Computes chunk vectors in the background, after their source's upload has returned (its words
 * are searchable at once; a chunk without a vector of the current model is searched by words
 * alone until it has one). Woken by each upload and at start; works through every chunk whose
 * vector is missing (oldest first) or came from another model, a few at a time.
 */
export class Vectorizer {
  private readonly work: BackgroundWork;
  /** Aborts the step in flight when the service stops. */
  private readonly halt = new AbortController();
  /** Vectors written, for tests and the log. */
  written = 0;

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly embedder: Embedder,
    private readonly caches: AgentCaches,
    private readonly log: Logger,
    /**
     * True while sources are being added: the vectorizer waits (the last upload wakes it), so
     * that an ingest is as fast as without vectors — on two cores the model would otherwise
     * take the core the parser threads use.
     */
    private readonly busy: () => boolean = () => false,
    private readonly batch = VECTOR_BATCH,
    quietMs = VECTOR_QUIET_MS,
  ) {
    this.work = new BackgroundWork(() => this.run(), {
      quietMs,
      retryMs: VECTOR_RETRY_MS,
      onFailure: (err) =>
        log.warn(
          { err: (err as Error).message, retryInMs: VECTOR_RETRY_MS },
          'embedding chunks failed; they stay searchable by words',
        ),
    });
  }

  /** Chunks were written: their vectors follow once uploads pause for `quietMs` (at once with 0). */
  wake(quietMs?: number): void {
    this.work.wake(quietMs);
  }

  /** Resolves once no step is running or due (every chunk has its vector, or a step failed). */
  settled(): Promise<void> {
    return this.work.settled();
  }

  /** Stops: the step in flight is abandoned (its chunks keep no vector and are taken up at the next start). */
  async stop(): Promise<void> {
    const stopped = this.work.stop();
    this.halt.abort(new Error('the knowledge service is stopping'));
    await stopped;
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.work.stopping || this.busy()) return;
      // Three ranges of the embedding_model index (`<` and `>` rather than `<>`, and no ORDER BY,
      // which made SQLite scan the table in id order): a table whose chunks all have their
      // vector is not read on every upload. Chunks with no vector come first, in id order.
      const rows = await this.db.all<{
        id: number;
        agent: string;
        source: string;
        heading: string;
        text: string;
      }>(sql`
          select c.id, c.agent_id as agent, s.name as source, c.heading_path as heading, c.text
          from chunks c join sources s on s.id = c.source_id
          where c.embedding_model is null
             or c.embedding_model < ${this.embedder.model} or c.embedding_model > ${this.embedder.model}
          limit ${this.batch}`);
      if (!rows.length) break;
      const texts = rows.map((r) => embeddedText(r.source, JSON.parse(r.heading) as string[], r.text));
      let vectors: Array<Float32Array | null>;
      try {
        vectors = await this.embedOrIsolate(texts);
      } catch (err) {
        // The local model said why once already; an endpoint is tried again later.
        if (this.work.stopping || err instanceof EmbedderUnavailableError) return;
        this.log.warn(
          { err: (err as Error).message, retryInMs: VECTOR_RETRY_MS },
          'embedding chunks failed; they stay searchable by words',
        );
        this.work.retryLater();
        return;
      }
      const model = this.embedder.model;
      // A chunk removed meanwhile updates nothing. One the model refused alone keeps no vector
      // but is marked done for this model, so it does not hold the others back.
      await this.db.transaction(async (tx) => {
        for (const [i, r] of rows.entries()) {
          const v = vectors[i];
          const bytes = v ? float32ToBuffer(v) : null;
          // One of the two columns holds it (by its size), the other is emptied of an older model's.
          const native = v?.length === VECTOR_DIMENSIONS;
          await tx.run(
            sql`update chunks set vector = ${native ? bytes : null}, embedding = ${native ? null : bytes}, embedding_model = ${model} where id = ${r.id}`,
          );
        }
      });
      this.written += vectors.filter(Boolean).length;
      for (const agent of new Set(rows.map((r) => String(r.agent)))) this.caches.vectorsChanged(agent);
    }
  }

  /**
   * The texts' vectors. When the batch fails, each text alone: one the embedder refuses while
   * others pass gets null (logged); when all fail the embedder is down and the error is thrown.
   */
  private async embedOrIsolate(texts: string[]): Promise<Array<Float32Array | null>> {
    try {
      return await this.embedder.embed(texts, this.halt.signal);
    } catch (err) {
      if (texts.length === 1 || this.work.stopping || err instanceof EmbedderUnavailableError) throw err;
      const alone = await Promise.all(
        texts.map((t) =>
          this.embedder.embed([t], this.halt.signal).then(
            ([v]) => v ?? null,
            (e: Error) => e,
          ),
        ),
      );
      if (alone.every((v) => v instanceof Error)) throw err;
      const refused = alone.filter((v) => v instanceof Error);
      if (refused.length)
        this.log.warn(
          { err: (refused[0] as Error).message, chunks: refused.length },
          'the embedder refused some chunks; they are searchable by words only',
        );
      return alone.map((v) => (v instanceof Error ? null : v));
    }
  }
}
