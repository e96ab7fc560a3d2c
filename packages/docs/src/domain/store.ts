import { type Database, type PreparedReads, preparedReads, type Transaction } from '@lore/kit/db';
import {
  float32FromBuffer,
  float32ToBuffer,
  ftsPhrase,
  type RankedRow,
  rankSplitTerms,
  type TermSplit,
} from '@lore/search';
import { type SQL, sql } from 'drizzle-orm';
import { type ReindexOptions, reindexChunks } from './reindex.js';
import { inList, ROWS_PER_INSERT, type Row, slices, toHit } from './store-rows.js';
import { bumpGeneration, mergeIndexStep, removeDocuments, writeDocuments } from './store-writes.js';

export { ftsRow } from './store-rows.js';

/** A document as `get_documents` returns it. */
export interface StoredDocument {
  name: string;
  uri: string;
  title: string;
  description: string;
  content: string;
  dataSource: string;
  updateTime: number;
}

/** A document ready to be written, with its chunks. */
export interface DocumentWrite {
  name: string;
  uri: string;
  title: string;
  description: string;
  content: string;
  dataSource: string;
  contentHash: string;
  updateTime: number;
  /** Whether rows for this name exist (its old chunks are replaced). */
  replaces: boolean;
  chunks: Array<{
    ordinal: number;
    headingPath: string[];
    text: string;
    vector?: Float32Array | undefined;
    /** The FTS row's stems, when a parser computed them (`chunkStems`). */
    stems?: { text: string; heading: string } | undefined;
  }>;
}

/** One search hit, hydrated. */
export interface ChunkHit {
  chunkId: number;
  document: string;
  ordinal: number;
  headingPath: string[];
  text: string;
  title: string;
  uri: string;
  score: number;
}

/**
 * Leaf pages a step of `DocsStore.mergeIndex` merges: about 20 ms of work on the bench machine,
 * so searches and writes get between the steps.
 */
export const MERGE_STEP_PAGES = 200;

export interface MergeIndexOptions {
  /** Leaf pages merged per step (per write transaction). Default `MERGE_STEP_PAGES`. */
  pages?: number;
  /** Stops between steps; a later merge goes on from where this one stopped. */
  signal?: AbortSignal;
}

/** Weights of the FTS columns for BM25: chunk text, document title, heading path. */
export const BM25_WEIGHTS = [1.0, 4.0, 2.0] as const;
const BM25 = sql.raw(`bm25(chunks_fts, ${BM25_WEIGHTS.join(', ')})`);

/**
 * The statements every search runs, as fixed SQL text: they go through the kit's prepared reads
 * (`preparedReads`), prepared once per database, instead of being built by drizzle and prepared
 * by @libsql/client on every search.
 */
const READS = {
  generation: `select value from docs_meta where key = 'generation'`,
  chunkCount: 'select count(*) as n from chunks',
  /** Chunks holding a term: match. */
  termCount: 'select count(*) as n from chunks_fts where chunks_fts match ?',
  /** The best rows of an expression: match, limit. */
  rank: `select rowid as id, bm25(chunks_fts, ${BM25_WEIGHTS.join(', ')}) as rank from chunks_fts
    where chunks_fts match ? order by rank, rowid limit ?`,
  /** Chunks by a JSON array of ids, with their documents' title and URI. */
  chunksById: `select c.id as id, c.document as document, c.ordinal as ordinal, c.heading_path as heading, c.text as text,
      d.title as title, d.uri as uri, 0 as rank
    from chunks c cross join documents d on d.name = c.document
    where c.id in (select value from json_each(?))`,
} as const;

/** Reads and writes the docs tables. Every write is one transaction (see `openDatabase`). */
export class DocsStore {
  private readonly reads: PreparedReads;

  constructor(readonly db: Database) {
    this.reads = preparedReads(db);
  }

  /** name → hash and source of every stored document (for re-ingest decisions). */
  async index(): Promise<Map<string, { hash: string; source: string }>> {
    const rows = await this.db.all<{ name: string; hash: string; source: string }>(
      sql`select name, content_hash as hash, data_source as source from documents`,
    );
    return new Map(rows.map((r) => [r.name, { hash: r.hash, source: r.source }]));
  }

  /** Writes documents and their chunks (FTS rows too), replacing older versions, in the caller's transaction. */
  writeDocuments(tx: Transaction, docs: DocumentWrite[]): Promise<number> {
    return writeDocuments(tx, docs);
  }

  /** Removes documents with their chunks, in the caller's transaction. */
  removeDocuments(tx: Transaction, names: string[]): Promise<void> {
    return removeDocuments(tx, names);
  }

  /**
   * Rewrites the FTS index from the chunks, in batches, when it was written by an older `ftsRow`
   * or emptied by a migration (see `reindexChunks`). How many chunks it rewrote.
   */
  reindex(opts?: ReindexOptions): Promise<number> {
    return reindexChunks(this.db, opts);
  }

  /**
   * Merges the FTS index's segments into one, in steps (`mergeIndexStep`), each its own write
   * transaction, yielding to the event loop between them. A bulk ingest leaves the index in
   * several segments (each write transaction adds one; FTS5 merges them four at a time), and a
   * search reads a term's rows from every segment and counts them once per statement for its
   * IDF. How many steps did work.
   */
  async mergeIndex(opts: MergeIndexOptions = {}): Promise<number> {
    let steps = 0;
    while (!opts.signal?.aborted && (await mergeIndexStep(this.db, opts.pages ?? MERGE_STEP_PAGES))) {
      steps++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return steps;
  }

  /** Moves the corpus generation on (vector caches reload when it changes). */
  bumpGeneration(tx: Transaction): Promise<void> {
    return bumpGeneration(tx);
  }

  async generation(): Promise<string> {
    const row = await this.reads.get(READS.generation);
    return row === undefined ? '0' : String(row.value);
  }

  /**
   * BM25 over chunk text, title and heading path, for a query's terms split by
   * `splitTermsByFrequency`, restricted by a compiled filter over `d` (documents). Best first.
   *
   * The ranking runs on the FTS table alone (`rankSplit`) and only the page is joined. With a
   * filter, the best few matches are filtered first; when that leaves too few (a selective
   * filter), the matches are joined and filtered before they are ranked.
   */
  async searchBm25(terms: TermSplit, filter: SQL | null, limit: number, offset: number): Promise<ChunkHit[]> {
    if (!filter) return this.hydrate((await this.rankSplit(terms, null, offset + limit)).slice(offset));
    const depth = Math.max(30, (offset + limit) * 3);
    const ranked = await this.rankSplit(terms, null, depth);
    const passes = await this.passing(
      ranked.map((r) => r.id),
      filter,
    );
    const kept = ranked.filter((r) => passes.has(r.id));
    if (kept.length >= offset + limit || ranked.length < depth) {
      return this.hydrate(kept.slice(offset, offset + limit));
    }
    // A selective filter: rank only the matches that pass it.
    return this.hydrate((await this.rankSplit(terms, filter, offset + limit)).slice(offset));
  }

  /**
   * The best `limit` chunks (passing `filter`, when given) for split query terms, best first
   * (see `rankSplitTerms`). Only ids and ranks leave SQL.
   */
  private async rankSplit(terms: TermSplit, filter: SQL | null, limit: number): Promise<RankedRow[]> {
    const ranked = await rankSplitTerms(terms, limit, async (match) => {
      const rows = filter
        ? await this.db.all<RankedRow>(sql`
            select c.id as id, ${BM25} as rank from chunks_fts
            cross join chunks c on c.id = chunks_fts.rowid
            cross join documents d on d.name = c.document
            where chunks_fts match ${match} and ${filter}
            order by rank, c.id
            limit ${limit}`)
        : await this.reads.all(READS.rank, [match, limit]);
      return rows.map((r) => ({ id: Number(r.id), rank: Number(r.rank) }));
    });
    return ranked ?? [];
  }

  /** The chunks of a ranking, in its order, scored by it. */
  private async hydrate(ranked: RankedRow[]): Promise<ChunkHit[]> {
    const hits = new Map(
      (
        await this.chunksById(
          ranked.map((r) => r.id),
          null,
        )
      ).map((h) => [h.chunkId, h]),
    );
    return ranked.flatMap((r) => {
      const h = hits.get(r.id);
      return h ? [{ ...h, score: -r.rank }] : [];
    });
  }

  /** How many chunks contain each term (document frequency), to split a query's terms by. */
  async termCounts(terms: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const t of terms)
      out.set(t, Number((await this.reads.get(READS.termCount, [ftsPhrase(t)]))?.n ?? 0));
    return out;
  }

  async chunkCount(): Promise<number> {
    return Number((await this.reads.get(READS.chunkCount))?.n ?? 0);
  }

  /** Which of these chunks belong to documents passing the filter. */
  async passing(ids: number[], filter: SQL): Promise<Set<number>> {
    const out = new Set<number>();
    for (const part of slices(ids, 1000)) {
      const rows = await this.db.all<{ id: number }>(sql`
        select c.id as id from chunks c cross join documents d on d.name = c.document where c.id in ${inList(part)} and ${filter}`);
      for (const r of rows) out.add(Number(r.id));
    }
    return out;
  }

  /** Chunks by id (those passing the filter), in no particular order. */
  async chunksById(ids: number[], filter: SQL | null): Promise<ChunkHit[]> {
    if (!ids.length) return [];
    if (!filter) return (await this.reads.all(READS.chunksById, [JSON.stringify(ids)])).map(toHit);
    const out: ChunkHit[] = [];
    for (const part of slices(ids, ROWS_PER_INSERT)) {
      const rows = await this.db.all<Row>(sql`
        select c.id as id, c.document as document, c.ordinal as ordinal, c.heading_path as heading, c.text as text,
               d.title as title, d.uri as uri, 0 as rank
        from chunks c cross join documents d on d.name = c.document
        where c.id in ${inList(part)} ${filter ? sql`and ${filter}` : sql``}`);
      out.push(...rows.map(toHit));
    }
    return out;
  }

  /** Every stored vector of `model` with its chunk id (for the in-memory vector index). */
  async vectors(model: string): Promise<Array<{ id: string; vector: Float32Array }>> {
    const rows = await this.db.all<{ id: number; vector: ArrayBuffer | Uint8Array }>(
      sql`select id, vector from chunks where vector is not null and vector_model = ${model}`,
    );
    return rows.map((r) => ({ id: String(r.id), vector: float32FromBuffer(r.vector) }));
  }

  /** Chunks after `afterId` without a vector of `model`, in id order, with the text to embed. */
  async chunksToEmbed(
    model: string,
    afterId: number,
    limit: number,
  ): Promise<Array<{ id: number; title: string; headingPath: string[]; text: string }>> {
    const rows = await this.db.all<{ id: number; title: string; heading: string; text: string }>(sql`
      select c.id as id, d.title as title, c.heading_path as heading, c.text as text
      from chunks c cross join documents d on d.name = c.document
      where c.id > ${afterId} and (c.vector is null or c.vector_model is not ${model})
      order by c.id limit ${limit}`);
    return rows.map((r) => ({
      id: Number(r.id),
      title: r.title,
      headingPath: JSON.parse(r.heading) as string[],
      text: r.text,
    }));
  }

  /**
   * Stores chunk vectors of `model` (a chunk deleted meanwhile is simply not updated) and moves
   * the vector generation on; returns the new generation.
   */
  async setVectors(rows: Array<{ id: number; vector: Float32Array }>, model: string): Promise<string> {
    await this.db.transaction(async (tx) => {
      for (const r of rows)
        await tx.run(
          sql`update chunks set vector = ${float32ToBuffer(r.vector)}, vector_model = ${model} where id = ${r.id}`,
        );
      await tx.run(sql`insert into docs_meta (key, value) values ('vectors', '1')
        on conflict(key) do update set value = cast(cast(value as integer) + 1 as text)`);
    });
    return this.vectorGeneration();
  }

  /** Moves on when vectors are stored (with the corpus generation, keys the vector caches). */
  async vectorGeneration(): Promise<string> {
    const rows = await this.db.all<{ value: string }>(sql`select value from docs_meta where key = 'vectors'`);
    return rows[0]?.value ?? '0';
  }

  /** Documents by name; unknown names are absent from the map. */
  async documents(names: string[]): Promise<Map<string, StoredDocument>> {
    const out = new Map<string, StoredDocument>();
    for (const part of slices(names, ROWS_PER_INSERT)) {
      const rows = await this.db.all<Row>(sql`
        select name, uri, title, description, content, data_source as source, update_time as updated
        from documents where name in ${inList(part)}`);
      for (const r of rows) {
        out.set(String(r.name), {
          name: String(r.name),
          uri: String(r.uri),
          title: String(r.title),
          description: String(r.description),
          content: String(r.content),
          dataSource: String(r.source),
          updateTime: Number(r.updated),
        });
      }
    }
    return out;
  }

  /** The corpora (data sources) that hold documents. */
  async corpora(): Promise<string[]> {
    const rows = await this.db.all<{ source: string }>(
      sql`select distinct data_source as source from documents`,
    );
    return rows.map((r) => r.source);
  }

  async counts(): Promise<{ documents: number; chunks: number; dataSources: Record<string, number> }> {
    const chunks = await this.db.all<{ n: number }>(sql`select count(*) as n from chunks`);
    const bySource = await this.db.all<{ source: string; n: number }>(
      sql`select data_source as source, count(*) as n from documents group by data_source order by data_source`,
    );
    const dataSources = Object.fromEntries(bySource.map((r) => [r.source, Number(r.n)]));
    const documents = bySource.reduce((n, r) => n + Number(r.n), 0);
    return { documents, chunks: Number(chunks[0]?.n ?? 0), dataSources };
  }
}
