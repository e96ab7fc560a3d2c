import { randomUUID } from 'node:crypto';
import type { Embedder } from '@lore/ingest';
import type { Database } from '@lore/kit';
import {
  insertRows,
  insertRowsReturning,
  type Logger,
  notFound,
  type Outbox,
  type Transaction,
} from '@lore/kit';
import type { KnowledgeSharing, KnowledgeSourceSummary } from '@lore/schema/knowledge';
import { KnowledgeSourceAdded, KnowledgeSourceRemoved } from '@lore/schema/knowledge-events';
import type { VerifiedAgent } from '@lore/schema/users';
import { float32ToBuffer } from '@lore/search';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { chunks, sources } from '../tables.js';
import type { AgentCaches } from './agent-caches.js';
import { type ExtractedDocument, prepareDocument } from './ingest.js';
import { type AddedSource, agentToken, passageText } from './knowledge-types.js';

type Db = Database<typeof tables>;

// Rows per multi-row INSERT: 400 × 7 columns stays well under SQLite's bound-parameter limit.
const INSERT_BATCH = 400;

/** Writes and removes agents' sources: chunks, their FTS rows and vectors, in one outbox transaction each. */
export class SourceIngestor {
  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly embedder: Embedder | null,
    private readonly caches: AgentCaches,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds a source, or replaces the caller's source of the same name; publishes KnowledgeSourceAdded. */
  async add(
    agent: VerifiedAgent,
    doc: ExtractedDocument,
    signal?: AbortSignal,
    share: { sharing?: KnowledgeSharing; summary?: string } = {},
  ): Promise<AddedSource> {
    // Split, keywords and stems come from a parser thread: none of it runs on the event loop.
    const { pieces, keywords: kw, terms } = doc.prepared ?? (await prepareDocument(doc));
    const { vectors, embeddingError } = await this.embed(doc.name, pieces, signal);
    const token = agentToken(agent.id);
    const lengths = terms.map(termCount);
    const t = this.now();
    const out = await this.outbox.transaction(async (tx, emit) => {
      const [existing] = await tx
        .select({ id: sources.id, sharing: sources.sharing, summary: sources.summary })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, doc.name)))
        .limit(1);
      // Replacing a source keeps its sharing unless told otherwise: a private file re-added must not turn auto.
      const sharing = share.sharing ?? existing?.sharing ?? 'auto';
      const summary = share.summary ?? existing?.summary ?? '';
      const fields = {
        sharing,
        summary,
        handle: agent.handle,
        tokens: lengths.reduce((n, x) => n + x, 0),
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
        const part = pieces.slice(i, i + INSERT_BATCH);
        // The FTS row of a chunk shares its id, which SQLite assigns: RETURNING hands it back.
        // Built as one flat statement (`insertRowsReturning`): drizzle's insert builder mapped
        // every value of every row through its column, a tenth of the ingest's time.
        const inserted = await insertRowsReturning<{ id: number; position: number }>(
          tx,
          'chunks',
          ['source_id', 'agent_id', 'position', 'heading_path', 'text', 'length', 'embedding'],
          part.map((p, k) => {
            const vector = vectors?.[i + k];
            return [
              sourceId,
              agent.id,
              p.index,
              JSON.stringify(p.headingPath),
              p.text,
              lengths[i + k]!,
              vector ? float32ToBuffer(vector) : null,
            ];
          }),
          'id, position',
        );
        const idAt = new Map(inserted.map((r) => [Number(r.position), Number(r.id)]));
        await insertRows(
          tx,
          'chunks_fts',
          ['rowid', 'agent', 'terms'],
          part.map((p, k) => [idAt.get(p.index)!, token, terms[i + k]!]),
        );
      }
      emit(KnowledgeSourceAdded, {
        agentId: agent.id,
        handle: agent.handle,
        source: doc.name,
        // Words extracted from a source that is not shared auto never leave this service.
        keywords: sharing === 'auto' ? kw : [],
        chunks: pieces.length,
        sharing,
        summary,
      });
      return { replaced: existing !== undefined, sharing, summary };
    });
    this.caches.forget(agent.id);
    return {
      source: doc.name,
      format: doc.format,
      chunks: pieces.length,
      keywords: kw,
      characters: doc.text.length,
      pages: doc.pages,
      replaced: out.replaced,
      vectors: vectors ? pieces.length : 0,
      sharing: out.sharing,
      summary: out.summary,
      ...(embeddingError ? { embeddingError } : {}),
    };
  }

  /** The chunks' vectors, or none (with why) when embedding fails: the source is still indexed for keywords. */
  private async embed(
    name: string,
    pieces: Array<{ headingPath: string[]; text: string }>,
    signal?: AbortSignal,
  ): Promise<{ vectors: Float32Array[] | null; embeddingError?: string }> {
    if (!this.embedder || !pieces.length) return { vectors: null };
    try {
      return {
        vectors: await this.embedder.embed(
          pieces.map((p) => passageText(p.headingPath, p.text)),
          signal,
        ),
      };
    } catch (err) {
      const embeddingError = (err as Error).message;
      this.log.warn(
        { err: embeddingError, source: name },
        'embedding failed; source indexed for keyword search only',
      );
      return { vectors: null, embeddingError };
    }
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
      sharing: r.sharing,
      summary: r.summary,
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
    this.caches.forget(agent.id);
    return { source: name, chunks: removed };
  }
}

/** Terms in an FTS column value (`indexTerms` joins them with single spaces). */
function termCount(terms: string): number {
  if (!terms) return 0;
  let n = 1;
  for (let i = 0; i < terms.length; i++) if (terms.charCodeAt(i) === 0x20) n++;
  return n;
}

async function deleteChunks(tx: Transaction, where: SQL): Promise<void> {
  await tx.run(sql`delete from chunks_fts where rowid in (select id from chunks where ${where})`);
  await tx.run(sql`delete from chunks where ${where}`);
}
