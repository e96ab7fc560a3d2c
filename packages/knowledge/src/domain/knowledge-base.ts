import { randomUUID } from 'node:crypto';
import {
  cosineTopK,
  type Database,
  excerpt,
  float32FromBuffer,
  float32ToBuffer,
  type Logger,
  notFound,
  type Outbox,
  reciprocalRankFusion,
  splitDocument,
  type Transaction,
  keywords as topicKeywords,
} from '@lore/kit';
import {
  KnowledgeSourceAdded,
  KnowledgeSourceRemoved,
  type KnowledgeSourceSummary,
  type VerifiedAgent,
} from '@lore/schema';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import * as tables from '../tables.js';
import type { Embedder } from './embeddings.js';
import type { ExtractedDocument } from './ingest.js';
import { type CorpusStats, scorePassage } from './relevance.js';
import { type AnalyzedQuery, analyzeQuery, ftsPhrase, indexTerms, stems } from './search-terms.js';

const { sources, chunks } = tables;
type Db = Database<typeof tables>;

/** Keywords kept per source (they become the agent's description for peers). */
export const SOURCE_KEYWORDS = 8;
/** Candidates BM25 hands to rescoring (and the vector scan returns), at least. */
const MIN_CANDIDATES = 50;
const INSERT_BATCH = 200;
const VECTOR_CACHE_AGENTS = 64;

export interface AddedSource {
  source: string;
  format: ExtractedDocument['format'];
  chunks: number;
  keywords: string[];
  characters: number;
  pages: number | null;
  replaced: boolean;
  vectors: number;
  /** Why the source has no vectors although an embeddings endpoint is configured. */
  embeddingError?: string;
}

export interface FoundPassage {
  id: string;
  source: string;
  chunk: number;
  headingPath: string[];
  text: string;
  excerpt: string;
  score: number;
  relevant: boolean;
}

export interface SearchOutcome {
  query: AnalyzedQuery;
  strategy: 'bm25' | 'hybrid';
  passages: FoundPassage[];
}

interface CandidateRow {
  id: number;
  source: string;
  position: number;
  heading_path: string;
  text: string;
}

/** The agent's token in the FTS index: a column filter on it keeps a search in its chunks. */
export const agentToken = (agentId: string) => `a${agentId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;

const passageText = (headingPath: string[], text: string) =>
  headingPath.length ? `${headingPath.join(' / ')}\n${text}` : text;

/** Every agent's knowledge sources: chunks, a BM25 index, optional vectors. */
export class KnowledgeBase {
  private readonly vectorCache = new Map<
    string,
    { rev: string; items: Array<{ id: string; vector: Float32Array }> }
  >();

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly embedder: Embedder | null,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get hasVectors(): boolean {
    return this.embedder !== null;
  }

  /** Adds a source, or replaces the caller's source of the same name; publishes KnowledgeSourceAdded. */
  async add(agent: VerifiedAgent, doc: ExtractedDocument, signal?: AbortSignal): Promise<AddedSource> {
    const pieces = await splitDocument(doc.text, {
      format: doc.format === 'markdown' || doc.format === 'html' ? 'markdown' : 'text',
    });
    const kw = topicKeywords(doc.text, SOURCE_KEYWORDS);
    let vectors: Float32Array[] | null = null;
    let embeddingError: string | undefined;
    if (this.embedder && pieces.length) {
      try {
        vectors = await this.embedder.embed(
          pieces.map((p) => passageText(p.headingPath, p.text)),
          signal,
        );
      } catch (err) {
        embeddingError = (err as Error).message;
        this.log.warn(
          { err: embeddingError, source: doc.name },
          'embedding failed; source indexed for keyword search only',
        );
      }
    }
    const token = agentToken(agent.id);
    const terms = pieces.map((p) => indexTerms(passageText(p.headingPath, p.text)));
    const t = this.now();
    const replaced = await this.outbox.transaction(async (tx, emit) => {
      const [existing] = await tx
        .select({ id: sources.id })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, doc.name)))
        .limit(1);
      const fields = {
        handle: agent.handle,
        tokens: terms.reduce((n, x) => n + (x ? x.split(' ').length : 0), 0),
        format: doc.format,
        characters: doc.text.length,
        pages: doc.pages,
        chunks: pieces.length,
        keywords: kw,
        updatedAt: t,
      };
      let sourceId: string;
      if (existing) {
        sourceId = existing.id;
        await deleteChunks(tx, sql`${chunks.sourceId} = ${sourceId}`);
        await tx.update(sources).set(fields).where(eq(sources.id, sourceId));
      } else {
        sourceId = randomUUID();
        await tx
          .insert(sources)
          .values({ id: sourceId, agentId: agent.id, name: doc.name, createdAt: t, ...fields });
      }
      for (let i = 0; i < pieces.length; i += INSERT_BATCH) {
        const batch = pieces.slice(i, i + INSERT_BATCH);
        const ids = await tx
          .insert(chunks)
          .values(
            batch.map((p, j) => ({
              sourceId,
              agentId: agent.id,
              position: p.index,
              headingPath: p.headingPath,
              text: p.text,
              length: terms[i + j] ? terms[i + j]!.split(' ').length : 0,
              embedding: vectors?.[i + j] ? float32ToBuffer(vectors[i + j]!) : null,
            })),
          )
          .returning({ id: chunks.id });
        await tx.run(
          sql`insert into chunks_fts(rowid, agent, terms) values ${sql.join(
            ids.map((r, j) => sql`(${r.id}, ${token}, ${terms[i + j]})`),
            sql`, `,
          )}`,
        );
      }
      emit(KnowledgeSourceAdded, {
        agentId: agent.id,
        handle: agent.handle,
        source: doc.name,
        keywords: kw,
        chunks: pieces.length,
      });
      return existing !== undefined;
    });
    this.vectorCache.delete(agent.id);
    return {
      source: doc.name,
      format: doc.format,
      chunks: pieces.length,
      keywords: kw,
      characters: doc.text.length,
      pages: doc.pages,
      replaced,
      vectors: vectors ? pieces.length : 0,
      ...(embeddingError ? { embeddingError } : {}),
    };
  }

  async list(agentId: string): Promise<KnowledgeSourceSummary[]> {
    const rows = await this.db
      .select()
      .from(sources)
      .where(eq(sources.agentId, agentId))
      .orderBy(asc(sources.name));
    return rows.map((r) => ({
      name: r.name,
      format: r.format,
      chunks: r.chunks,
      keywords: r.keywords,
      characters: r.characters,
      pages: r.pages,
      addedAt: new Date(r.createdAt).toISOString(),
      updatedAt: new Date(r.updatedAt).toISOString(),
    }));
  }

  /** Removes one of the agent's sources; 404 (the same for "not yours" as for "no such") otherwise. */
  async remove(agent: VerifiedAgent, name: string): Promise<{ source: string; chunks: number }> {
    const removed = await this.outbox.transaction(async (tx, emit) => {
      const [row] = await tx
        .select({ id: sources.id, chunks: sources.chunks })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, name)))
        .limit(1);
      if (!row) return null;
      await deleteChunks(tx, sql`${chunks.sourceId} = ${row.id}`);
      await tx.delete(sources).where(eq(sources.id, row.id));
      emit(KnowledgeSourceRemoved, { agentId: agent.id, handle: agent.handle, source: name });
      return row.chunks;
    });
    if (removed === null)
      throw notFound(`You have no knowledge source named '${name}'. listKnowledgeSources shows yours.`, {
        source: name,
      });
    this.vectorCache.delete(agent.id);
    return { source: name, chunks: removed };
  }

  /**
   * The agent's best passages for a query: BM25 candidates from the FTS index, rescored with the
   * agent's own statistics (see relevance.ts), fused with the nearest vectors when embeddings
   * are configured.
   */
  async search(
    agentId: string,
    text: string,
    opts: { limit: number; source?: string; signal?: AbortSignal; relevantFirst?: boolean },
  ): Promise<SearchOutcome> {
    const q = analyzeQuery(text);
    const strategy = this.embedder ? 'hybrid' : 'bm25';
    if (!q.match) return { query: q, strategy, passages: [] };
    const k = Math.max(MIN_CANDIDATES, opts.limit * 5);
    const token = agentToken(agentId);
    const expr = `agent:${ftsPhrase(token)} AND (${q.match})`;
    const sourceFilter = opts.source !== undefined ? sql`and s.name = ${opts.source}` : sql``;
    // With a source filter the FTS limit would cut that source's rows: let SQL filter first.
    const ftsLimit = opts.source !== undefined ? 100_000 : k;
    // CROSS JOIN keeps the FTS result as the outer loop: chunks are looked up by id, never scanned by agent.
    const [lexical, stats, vectorHits] = await Promise.all([
      this.db.all<CandidateRow>(sql`
        select c.id, s.name as source, c.position, c.heading_path, c.text
        from (select rowid as id, bm25(chunks_fts, 0.0, 1.0) as r from chunks_fts where chunks_fts match ${expr} order by r limit ${ftsLimit}) f
        cross join chunks c on c.id = f.id
        cross join sources s on s.id = c.source_id
        where +c.agent_id = ${agentId} ${sourceFilter}
        order by f.r
        limit ${k}`),
      this.corpusStats(agentId, token, q),
      this.nearest(agentId, text, k, opts.signal),
    ]);

    const byId = new Map<number, CandidateRow>(lexical.map((r) => [r.id, r]));
    const missing = vectorHits.map((h) => Number(h.id)).filter((id) => !byId.has(id));
    if (missing.length) {
      const rows = await this.db.all<CandidateRow>(sql`
        select c.id, s.name as source, c.position, c.heading_path, c.text
        from chunks c join sources s on s.id = c.source_id
        where +c.agent_id = ${agentId} ${sourceFilter} and c.id in (${sql.join(
          missing.map((id) => sql`${id}`),
          sql`, `,
        )})`);
      for (const r of rows) byId.set(r.id, r);
    }

    const scored = new Map<number, FoundPassage>();
    for (const r of byId.values()) {
      const headingPath = JSON.parse(r.heading_path) as string[];
      const s = scorePassage(q, stems(passageText(headingPath, r.text)), stats);
      scored.set(r.id, {
        id: String(r.id),
        source: r.source,
        chunk: r.position,
        headingPath,
        text: r.text,
        excerpt: '',
        score: s.score,
        relevant: s.relevant,
      });
    }
    const lexicalRanked = [...lexical.map((r) => scored.get(r.id)!)]
      .filter((p) => p.score > 0)
      .sort((a, b) => b.score - a.score);
    let ranked: FoundPassage[];
    if (vectorHits.length) {
      const vectorRanked = vectorHits
        .map((h) => scored.get(Number(h.id)))
        .filter((p): p is FoundPassage => p !== undefined);
      ranked = reciprocalRankFusion([lexicalRanked, vectorRanked], (p) => p.id).map(({ item, score }) => ({
        ...item,
        score,
      }));
    } else ranked = lexicalRanked;
    // For drafting, a relevant passage must not be pushed out of the top by a vector-only hit.
    if (opts.relevantFirst)
      ranked = [...ranked.filter((p) => p.relevant), ...ranked.filter((p) => !p.relevant)];
    const words = [...q.terms, ...q.stems];
    return {
      query: q,
      strategy,
      passages: ranked.slice(0, opts.limit).map((p) => ({ ...p, excerpt: excerpt(p.text, words) })),
    };
  }

  async stats(): Promise<{ sources: number; chunks: number; agents: number }> {
    const [row] = await this.db.all<{ sources: number; chunks: number; agents: number }>(
      sql`select count(*) as sources, coalesce(sum(chunks), 0) as chunks, count(distinct agent_id) as agents from sources`,
    );
    return {
      sources: Number(row?.sources ?? 0),
      chunks: Number(row?.chunks ?? 0),
      agents: Number(row?.agents ?? 0),
    };
  }

  private async corpusStats(agentId: string, token: string, q: AnalyzedQuery): Promise<CorpusStats> {
    const agent = `agent:${ftsPhrase(token)}`;
    const dfCols = q.stems.map(
      (s, i) =>
        sql`(select count(*) from chunks_fts where chunks_fts match ${`${agent} AND ${ftsPhrase(s)}`}) as ${sql.raw(`d${i}`)}`,
    );
    const [row] = await this.db.all<Record<string, number | null>>(sql`
      select (select coalesce(sum(chunks), 0) from sources where agent_id = ${agentId}) as n,
             (select 1.0 * sum(tokens) / max(sum(chunks), 1) from sources where agent_id = ${agentId}) as avg,
             ${sql.join(dfCols, sql`, `)}`);
    const df = new Map<string, number>(q.stems.map((s, i) => [s, Number(row?.[`d${i}`] ?? 0)]));
    return { chunks: Number(row?.n ?? 0), avgLength: Number(row?.avg ?? 0), df };
  }

  /** The agent's chunks nearest to the query by cosine, when embeddings are configured. */
  private async nearest(
    agentId: string,
    text: string,
    k: number,
    signal?: AbortSignal,
  ): Promise<Array<{ id: string; score: number }>> {
    if (!this.embedder) return [];
    try {
      const [[query], items] = await Promise.all([
        this.embedder.embed([text], signal),
        this.vectors(agentId),
      ]);
      return query && items.length ? cosineTopK(query, items, k) : [];
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'query embedding failed; searching by keywords only');
      return [];
    }
  }

  /** The agent's vectors, cached until its chunks change (chunk ids only grow, so count:max is a revision). */
  private async vectors(agentId: string): Promise<Array<{ id: string; vector: Float32Array }>> {
    const [rev] = await this.db.all<{ n: number; m: number | null }>(
      sql`select count(*) as n, max(id) as m from chunks where agent_id = ${agentId}`,
    );
    const key = `${rev?.n ?? 0}:${rev?.m ?? 0}`;
    const cached = this.vectorCache.get(agentId);
    if (cached?.rev === key) {
      this.vectorCache.delete(agentId);
      this.vectorCache.set(agentId, cached);
      return cached.items;
    }
    const rows = await this.db
      .select({ id: chunks.id, embedding: chunks.embedding })
      .from(chunks)
      .where(and(eq(chunks.agentId, agentId), sql`${chunks.embedding} is not null`));
    const items = rows.map((r) => ({ id: String(r.id), vector: float32FromBuffer(r.embedding!) }));
    this.vectorCache.set(agentId, { rev: key, items });
    while (this.vectorCache.size > VECTOR_CACHE_AGENTS)
      this.vectorCache.delete(this.vectorCache.keys().next().value!);
    return items;
  }
}

async function deleteChunks(tx: Transaction, where: SQL): Promise<void> {
  await tx.run(sql`delete from chunks_fts where rowid in (select id from chunks where ${where})`);
  await tx.run(sql`delete from chunks where ${where}`);
}
