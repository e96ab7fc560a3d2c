import { createHash } from 'node:crypto';
import {
  type Embedder,
  type EmbeddingsConfig,
  type EmbedLog,
  embedderFromConfig,
  embeddingsChoice,
} from '@lore/embed';
import { nearestSql, vectorParam } from '@lore/search';
import { sql } from 'drizzle-orm';
import type { Database } from './db/index.js';
import type { Logger } from './logger.js';

const shared = new Map<string, Embedder | null>();

/**
 * The embedder the settings ask for, one per process and choice: the services of an all-in-one
 * node share one model thread (and its ~100 MB) instead of loading a copy each. `null` for
 * `LORE_EMBEDDINGS=off`. Closing it (a service stopping) only ends its thread until the next use.
 */
export function sharedEmbedder(config: EmbeddingsConfig, log?: EmbedLog): Embedder | null {
  const choice = embeddingsChoice(config);
  const key = JSON.stringify([choice, config.LORE_EMBEDDINGS_MODEL, config.LORE_EMBEDDINGS_API_KEY ?? '']);
  if (!shared.has(key)) shared.set(key, embedderFromConfig(config, log ? { log } : {}));
  return shared.get(key)!;
}

/** A text to hold a vector for, under the caller's id. */
export interface VectorText {
  id: string;
  text: string;
}

/** A stored vector near a query: cosine similarity, 1 for the same direction. */
export interface NearHit {
  id: string;
  similarity: number;
}

/** Texts embedded per call to the embedder in the background. */
const BATCH = 16;
/** After a failed read or write of the vector table, the next try. */
const STORE_RETRY_MS = 2000;

const hashOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * Vectors of a service's short texts (agent profiles, articles, questions) in a table of its own
 * (`id text primary key, model text, hash text, vector F32_BLOB`), searched by libSQL's
 * `vector_distance_cos`. Each vector is tagged with the model that made it and a hash of the
 * text: a vector of another model or of an older text is stale, and `refresh` re-embeds it in
 * the background. Nothing waits for the embedder: until an item has a fresh vector, searches
 * find it by its words alone, and with no embedder (`LORE_EMBEDDINGS=off`) or a broken one every
 * search is lexical.
 */
export class TextVectors {
  private readonly pending = new Map<string, string>();
  /** Hashes of the texts whose vector of this model is known to be stored: refresh skips them. */
  private readonly stored = new Map<string, string>();
  private running: Promise<void> | undefined;
  private unavailable = false;
  /** Texts embedded since the start (for tests and statistics). */
  embedded = 0;

  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly embedder: Embedder | null,
    private readonly log?: Logger,
  ) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`TextVectors: bad table name ${table}`);
  }

  /** Whether searches may use vectors at all (an embedder is configured and has not failed to load). */
  get enabled(): boolean {
    return this.embedder !== null && !this.unavailable && !this.closed;
  }

  /**
   * Embeds, in the background, the texts whose stored vector is missing, of another model or of
   * another text. Cheap to call on every search: one read of the stored hashes.
   */
  refresh(items: VectorText[]): void {
    if (!this.enabled || !items.length) return;
    for (const { id, text } of items) if (this.stored.get(id) !== hashOf(text)) this.pending.set(id, text);
    if (!this.pending.size) return;
    this.start();
  }

  /**
   * Drains the queue in the background. A failure to read or store (the database busy with
   * another writer, a disk error) is logged and the items it left are tried again a little
   * later: nothing is lost, and nothing rejects unheard.
   */
  private start(): void {
    this.running ??= this.drain()
      .catch((err: unknown) => {
        if (this.closed) return;
        this.log?.warn(
          { table: this.table, err: (err as Error)?.message, retryInMs: STORE_RETRY_MS },
          'storing vectors failed; trying again',
        );
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.start(), STORE_RETRY_MS);
        this.retry.unref();
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Drops the queued work and waits for the batch in hand (a service stopping: its database closes next). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.pending.clear();
    await this.settled();
  }

  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  /** Resolves when the background work queued so far is done (evaluations, tests). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Forgets the vectors of items that are gone. */
  async remove(ids: string[]): Promise<void> {
    for (const id of ids) {
      this.pending.delete(id);
      this.stored.delete(id);
    }
    for (let i = 0; i < ids.length; i += 500)
      await this.db.run(
        sql`delete from ${sql.identifier(this.table)} where id in (${sql.join(
          ids.slice(i, i + 500).map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
  }

  /**
   * The stored vectors of this model nearest to `query`, most similar first, down to
   * `minSimilarity`, at most `limit`, of ids starting with `prefix` when given. `null` when there is no embedder or embedding the query
   * failed: the caller searches by words alone.
   */
  async nearest(
    query: string,
    opts: { limit: number; minSimilarity: number; prefix?: string },
  ): Promise<NearHit[] | null> {
    if (!this.enabled || !query.trim()) return null;
    let vector: Float32Array | undefined;
    try {
      [vector] = await this.embedder!.embed([query]);
    } catch (err) {
      this.failed(err);
      return null;
    }
    if (!vector) return null;
    const statement = nearestSql({
      table: this.table,
      column: 'vector',
      id: 'id',
      where: opts.prefix ? 'model = ? and substr(id, 1, ?) = ?' : 'model = ?',
      k: Math.max(1, Math.floor(opts.limit)),
    });
    const args = opts.prefix
      ? [vectorParam(vector), this.embedder!.model, opts.prefix.length, opts.prefix]
      : [vectorParam(vector), this.embedder!.model];
    const rs = await this.db.$client.execute({ sql: statement, args });
    return rs.rows
      .map((r) => ({ id: String(r.id), similarity: Number(r.similarity) }))
      .filter((r) => r.similarity >= opts.minSimilarity);
  }

  private async drain(): Promise<void> {
    while (this.pending.size && this.enabled) {
      const wanted = [...this.pending].slice(0, 200);
      const stored = await this.db.all<{ id: string; model: string; hash: string }>(
        sql`select id, model, hash from ${sql.identifier(this.table)} where id in (${sql.join(
          wanted.map(([id]) => sql`${id}`),
          sql`, `,
        )})`,
      );
      const have = new Map(stored.map((r) => [r.id, r]));
      const stale = wanted
        .map(([id, text]) => ({ id, text, hash: hashOf(text) }))
        .filter(({ id, hash }) => {
          const s = have.get(id);
          const fresh = s !== undefined && s.model === this.embedder!.model && s.hash === hash;
          if (fresh) this.stored.set(id, hash);
          return !fresh;
        });
      for (const [id, text] of wanted) if (this.pending.get(id) === text) this.pending.delete(id);
      for (let i = 0; i < stale.length && this.enabled; i += BATCH) {
        const batch = stale.slice(i, i + BATCH);
        let vectors: Float32Array[];
        try {
          vectors = await this.embedder!.embed(batch.map((b) => b.text));
        } catch (err) {
          this.failed(err);
          return;
        }
        for (const [j, b] of batch.entries()) {
          const blob = vectorParam(vectors[j]!);
          await this.store(stale.slice(i + j), () =>
            this.db.run(
              sql`insert into ${sql.identifier(this.table)} (id, model, hash, vector) values (${b.id}, ${this.embedder!.model}, ${b.hash}, ${blob})
                on conflict(id) do update set model = excluded.model, hash = excluded.hash, vector = excluded.vector`,
            ),
          );
        }
        for (const b of batch) this.stored.set(b.id, b.hash);
        this.embedded += batch.length;
      }
    }
  }

  /** Runs one write; when it fails, `left` (this item and those after it) goes back in the queue first. */
  private async store(
    left: Array<{ id: string; text: string }>,
    write: () => Promise<unknown>,
  ): Promise<void> {
    try {
      await write();
    } catch (err) {
      for (const { id, text } of left) if (!this.pending.has(id)) this.pending.set(id, text);
      throw err;
    }
  }

  private failed(err: unknown): void {
    const name = (err as Error)?.name;
    if (name === 'EmbedderUnavailableError') {
      if (!this.unavailable)
        this.log?.warn({ table: this.table }, 'embedding model unavailable: searching by words only');
      this.unavailable = true;
      this.pending.clear();
      return;
    }
    this.log?.warn(
      { table: this.table, err: (err as Error)?.message },
      'embedding failed; searching by words only for now',
    );
  }
}
