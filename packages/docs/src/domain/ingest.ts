import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { ParseLimitError, parserPool, runIsolated, taskModule } from '@lore/ingest';
import { type Logger, plural, settleInPool } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Transaction } from '@lore/kit/db';
import { DocsCorpusIngested } from '@lore/schema/docs';
import type { CrawlOptions } from './crawl.js';
import { crawl } from './crawl-lazy.js';
import { titleFromPath } from './parse.js';
import type { PreparedDocument } from './prepare.js';
import { collectLocal, type RawDocument } from './sources.js';
import type { DocsStore, DocumentWrite } from './store.js';
import type { ChunkVectors } from './vectors.js';

/**
 * Where an ingest writes: the store, and optionally the outbox (for the event) and the background
 * embedding its new chunks are handed to.
 */
export interface IngestTarget {
  store: DocsStore;
  outbox?: Outbox | undefined;
  vectors?: Pick<ChunkVectors, 'kick'> | null | undefined;
  log?: Logger | undefined;
  now?: () => number;
}

export interface IngestOptions {
  /** The data source (corpus) the documents belong to. */
  source: string;
  /** Remove documents of the source that this run did not see. Default true. */
  prune?: boolean;
  /** Documents per write transaction. Default 250. */
  batchSize?: number;
  /** Files read and parsed at once. Default 16. */
  readConcurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Merge the FTS index into one segment afterwards when this ingest wrote at least
   * `1 / MERGE_SHARE` of the chunks in several transactions (`DocsStore.mergeIndex`). Default true.
   */
  mergeIndex?: boolean;
}

/**
 * An ingest merges the index when its own chunks are at least this share of the table: the merge
 * rewrites the whole index (about 1.3–2 s for 100k chunks on the bench machine, 4–6 % of their
 * ingest), which a small update to a large corpus should not pay.
 */
export const MERGE_SHARE = 0.25;

export interface IngestSummary {
  source: string;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Chunks written (of added and updated documents). */
  chunks: number;
  /** Chunks embedded during the ingest: 0, vectors are computed in the background afterwards. */
  vectors: number;
  /** Steps of merging the FTS index's segments afterwards (0: not merged). */
  indexMergeSteps: number;
  failed: Array<{ origin: string; reason: string }>;
  /** Pages or files not ingested on purpose (robots.txt, other hosts, not documents). */
  skipped: Array<{ url: string; reason: string }>;
  seconds: number;
}

interface Prepared {
  write: DocumentWrite;
  kind: 'added' | 'updated';
}

export function contentHash(parts: Array<string>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex');
}

/**
 * Ingests documents as one data source: new ones are added, changed ones (by content hash)
 * replaced, unchanged ones left alone, and — unless `prune` is false — documents of the
 * source that are not in `docs` removed. Writes go in batches, one transaction each, FTS rows
 * with their chunks; the `lore.docs.corpus.ingested` event goes out with the last one when
 * anything changed.
 */
export async function ingestDocuments(
  target: IngestTarget,
  docs: RawDocument[],
  opts: IngestOptions,
): Promise<IngestSummary> {
  const t0 = performance.now();
  const now = target.now ?? Date.now;
  const source = opts.source.trim();
  if (!source) throw new Error('a data source name is required');
  const batchSize = Math.max(1, opts.batchSize ?? 250);
  const readConcurrency = Math.max(1, opts.readConcurrency ?? 16);
  const summary: IngestSummary = {
    source,
    added: 0,
    updated: 0,
    removed: 0,
    unchanged: 0,
    chunks: 0,
    vectors: 0,
    indexMergeSteps: 0,
    failed: [],
    skipped: [],
    seconds: 0,
  };

  const existing = await target.store.index();
  const seen = new Set<string>();
  const unique: RawDocument[] = [];
  for (const d of docs) {
    if (seen.has(d.name)) {
      summary.failed.push({ origin: d.origin, reason: `another file already has the name ${d.name}` });
      continue;
    }
    seen.add(d.name);
    unique.push(d);
  }

  let done = 0;
  let transactions = 0;
  opts.onProgress?.(0, unique.length);
  for (let i = 0; i < unique.length; i += batchSize) {
    const batch = unique.slice(i, i + batchSize);
    const prepared: Prepared[] = [];
    const failed = await settleInPool(batch, readConcurrency, async (doc) => {
      try {
        const p = await prepare(doc, source, existing.get(doc.name), now);
        if (p) prepared.push(p);
        else summary.unchanged++;
      } finally {
        opts.onProgress?.(++done, unique.length);
      }
    });
    for (const { item, err } of failed)
      summary.failed.push({ origin: item.origin, reason: (err as Error).message });
    if (!prepared.length) continue;
    prepared.sort((a, b) => (a.write.name < b.write.name ? -1 : 1));
    const writes = prepared.map((p) => p.write);
    await target.store.db.transaction(async (tx: Transaction) => {
      summary.chunks += await target.store.writeDocuments(tx, writes);
      await target.store.bumpGeneration(tx);
    });
    transactions++;
    for (const p of prepared) summary[p.kind]++;
  }

  // Documents of this source that were not seen (and did not merely fail to load) are gone.
  const vanished =
    opts.prune === false
      ? []
      : [...existing].filter(([name, e]) => e.source === source && !seen.has(name)).map(([name]) => name);
  summary.removed = vanished.length;
  const changed = summary.added + summary.updated + summary.removed > 0;
  const finish = async (tx: Transaction) => {
    if (vanished.length) {
      await target.store.removeDocuments(tx, vanished);
      await target.store.bumpGeneration(tx);
    }
  };
  const sourceDocuments =
    [...existing.values()].filter((e) => e.source === source).length + summary.added - summary.removed;
  if (changed && target.outbox) {
    await target.outbox.transaction(async (tx, emit) => {
      await finish(tx);
      emit(DocsCorpusIngested, {
        source,
        added: summary.added,
        updated: summary.updated,
        removed: summary.removed,
        unchanged: summary.unchanged,
        documents: sourceDocuments,
        chunks: summary.chunks,
      });
    });
  } else if (vanished.length) {
    await target.store.db.transaction(finish);
  }
  // Each write transaction left a segment in the FTS index: a bulk ingest leaves several, and
  // every search reads (and counts for its IDF) a term's rows in each of them.
  if (
    opts.mergeIndex !== false &&
    transactions >= 2 &&
    summary.chunks >= (await target.store.chunkCount()) * MERGE_SHARE
  )
    summary.indexMergeSteps = await target.store.mergeIndex();
  summary.seconds = (performance.now() - t0) / 1000;
  target.log?.info(
    {
      source,
      added: summary.added,
      updated: summary.updated,
      removed: summary.removed,
      unchanged: summary.unchanged,
      chunks: summary.chunks,
      indexMergeSteps: summary.indexMergeSteps,
      failed: summary.failed.length,
      seconds: Number(summary.seconds.toFixed(3)),
    },
    'docs ingested',
  );
  // Searchable by words now; by meaning once the background embedding reaches these chunks.
  if (summary.chunks) target.vectors?.kick();
  return summary;
}

const PREPARE_MODULE = taskModule(import.meta.url, { source: './prepare.ts', built: './prepare.js' });

async function prepare(
  doc: RawDocument,
  source: string,
  before: { hash: string; source: string } | undefined,
  now: () => number,
): Promise<Prepared | null> {
  const raw = await doc.read();
  // Parsed and split in a parser, under @lore/ingest's limits (time, memory, nesting).
  const pool = parserPool();
  let prepared: PreparedDocument;
  try {
    prepared = await runIsolated<PreparedDocument>(
      PREPARE_MODULE,
      'prepareDocument',
      [raw, doc.format, titleFromPath(doc.origin.replace(/^[a-z]+:\/\/[^/]+/i, '')), pool.limits.maxNesting],
      pool,
    );
  } catch (err) {
    if (err instanceof ParseLimitError)
      throw new Error(`refused: ${err.message} (${err.limit} limit)`, { cause: err });
    throw err;
  }
  const { parsed, chunks } = prepared;
  const hash = contentHash([doc.uri, parsed.title, parsed.description, parsed.content, source]);
  if (before && before.hash === hash) return null;
  return {
    kind: before ? 'updated' : 'added',
    write: {
      name: doc.name,
      uri: doc.uri,
      title: parsed.title,
      description: parsed.description,
      content: parsed.content,
      dataSource: source,
      contentHash: hash,
      updateTime: now(),
      replaces: before !== undefined,
      chunks: chunks.map((c) => ({
        ordinal: c.index,
        headingPath: c.headingPath,
        text: c.text,
        stems: c.stems,
      })),
    },
  };
}

/** What a chunk is embedded from: its page's title and its headings as context, then its text. */
export function embeddingText(title: string, headingPath: string[], text: string): string {
  const heading = headingPath.filter((h) => h !== title).join(' > ');
  return `${title}${heading ? `\n${heading}` : ''}\n\n${text}`.slice(0, 8000);
}

export interface IngestInputsOptions extends Omit<IngestOptions, 'source'> {
  /** The data source; default the host of `baseUri` or of the first URL, else the first path's name. */
  source?: string | undefined;
  /** Where local files are published (names become `documents/<host>/<path>`). */
  baseUri?: string | undefined;
  crawl?: Omit<CrawlOptions, 'onPage'>;
  /** Called while pages are fetched, before the ingest proper. */
  onFetch?: (url: string, fetched: number, queued: number) => void;
}

export const isUrl = (s: string) => /^https?:\/\//i.test(s);

/** The data source a set of inputs gets when none is named. */
export function defaultSource(inputs: string[], baseUri?: string): string {
  if (baseUri) return new URL(baseUri).host;
  const url = inputs.find(isUrl);
  if (url) return new URL(url).host;
  const first = inputs[0];
  if (!first) throw new Error('nothing to ingest');
  return basename(resolve(first)).replace(/\.[A-Za-z]+$/, '') || 'local';
}

/**
 * Ingests folders, files and URLs as one data source (what `lore docs ingest` runs). URLs are
 * crawled politely (see `crawl`); paths are read from disk.
 */
export async function ingestInputs(
  target: IngestTarget,
  inputs: string[],
  opts: IngestInputsOptions = {},
): Promise<IngestSummary> {
  if (!inputs.length) throw new Error('nothing to ingest: give at least one path or URL');
  if (opts.baseUri) {
    const u = new URL(opts.baseUri);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new Error(`--base-uri must be an http(s) URL, got ${opts.baseUri}`);
  }
  const source = opts.source?.trim() || defaultSource(inputs, opts.baseUri);
  const docs: RawDocument[] = [];
  const skipped: IngestSummary['skipped'] = [];
  for (const input of inputs) {
    if (isUrl(input)) {
      const r = await crawl(input, { ...opts.crawl, ...(opts.onFetch ? { onPage: opts.onFetch } : {}) });
      docs.push(...r.documents);
      skipped.push(...r.skipped);
    } else {
      docs.push(...(await collectLocal(input, { baseUri: opts.baseUri })));
    }
  }
  const summary = await ingestDocuments(target, docs, { ...opts, source });
  summary.skipped.push(...skipped);
  return summary;
}

/** The one-line summary the CLI prints. */
export function summaryLine(s: IngestSummary): string {
  const rate =
    s.seconds > 0
      ? ` (${Math.round((s.added + s.updated + s.unchanged) / s.seconds)} documents/s, ${Math.round(s.chunks / s.seconds)} chunks/s)`
      : '';
  return (
    `Ingested "${s.source}": ${s.added} added, ${s.updated} updated, ${s.removed} removed, ${s.unchanged} unchanged; ` +
    `${plural(s.chunks, 'chunk')} in ${s.seconds.toFixed(2)} s${rate}` +
    (s.failed.length ? `; ${s.failed.length} failed` : '') +
    (s.skipped.length ? `; ${s.skipped.length} skipped` : '')
  );
}
