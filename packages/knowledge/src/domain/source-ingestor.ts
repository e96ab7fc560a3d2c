import { randomUUID } from 'node:crypto';
import { notFound } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import { insertRows, insertRowsReturning, type Transaction } from '@lore/kit/db';
import type { KnowledgeSharing, KnowledgeSourceSummary } from '@lore/schema/knowledge';
import { KnowledgeSourceAdded, KnowledgeSourceRemoved } from '@lore/schema/knowledge-events';
import type { VerifiedAgent } from '@lore/schema/users';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { chunks, sources } from '../tables.js';
import type { AgentCaches } from './agent-caches.js';
import { type ExtractedDocument, prepareDocument } from './ingest.js';
import { type AddedSource, agentToken } from './knowledge-types.js';
import { MAX_PART, type PreparedPart } from './prepare-source.js';
import type { PreparedStream } from './prepared-stream.js';

type Db = Database<typeof tables>;

// Most rows a multi-row INSERT writes (the rows go as one JSON parameter; this bounds its size).
const INSERT_BATCH = MAX_PART;

/**
 * Most milliseconds, in all, a source's transaction waits for its parser's parts and
 * keywords while holding the service's write turn; past it the transaction rolls back and the
 * source is written once the thread is done. On an idle machine the thread keeps ahead of the
 * writes (a wait of well under a millisecond a source).
 */
export const PARTS_WAIT_MS = 50;

/** Thrown inside a source's transaction when its parser is late: see `PARTS_WAIT_MS`. */
const PARSER_LATE = new Error('the parser is late');

/** A `next` over parts already gathered. */
const listed = (parts: PreparedPart[]) => {
  const rest = [...parts];
  return async () => rest.shift() ?? null;
};

/** Writes and removes agents' sources: chunks, their FTS rows and vectors, in one outbox transaction each. */
export class SourceIngestor {
  /** Sources being added now (streaming is for a lone one: see `add`). */
  private adding = 0;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    /** Called after each upload: the chunks' vectors follow in the background. */
    private readonly written: () => void,
    private readonly caches: AgentCaches,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Adds a source, or replaces the caller's source of the same name; publishes
   * KnowledgeSourceAdded. The writes start as soon as the parser has
   * split the text and stemmed its first pieces, and go on while it stems the rest and picks
   * the keywords (the transaction takes whatever has arrived at each step): a lone uploader
   * waits for the parse and the writes together rather than one after the other. Nothing is
   * written before the split has succeeded, so a document refused by a parse limit there
   * never holds the write turn; one refused later rolls its transaction back. A transaction
   * that has waited `PARTS_WAIT_MS` in all for the parser (a busy machine, where the
   * parser runs last) gives the write turn back and writes the source again once it is whole.
   * While another source is being added, a source is gathered whole before its transaction:
   * the two uploads' parses and writes overlap each other instead. Vectors are not waited for:
   * they are computed in the background once the source is written (see `Vectorizer`).
   */
  async add(
    agent: VerifiedAgent,
    doc: ExtractedDocument,
    share: { sharing?: KnowledgeSharing; summary?: string } = {},
  ): Promise<AddedSource> {
    // Split, stems and keywords come from a parser: none of it runs on the event loop.
    const stream = doc.prepared ?? prepareDocument(doc);
    this.adding++;
    try {
      // The first part, outside the transaction: the split is done and did not hit a limit.
      const taken: PreparedPart[] = [];
      const first = await stream.next(INSERT_BATCH);
      if (first) taken.push(first);
      // The source gathered whole first, then written in one go.
      const whole = async () => {
        const { parts } = await stream.all();
        return {
          ...(await this.write(agent, doc, share, stream, listed([...taken, ...parts]))),
          vectors: 0,
        };
      };
      // Another source is on its way in: its writes overlap this one's parse already, and the
      // write turn is not held while the parser works.
      if (this.adding > 1) return await whole();
      let given = 0;
      let waited = 0;
      const streamed = async (): Promise<PreparedPart | null> => {
        if (given < taken.length) return taken[given++]!;
        const t0 = performance.now();
        const ready = await stream.ready(Math.max(0, PARTS_WAIT_MS - waited));
        waited += performance.now() - t0;
        if (!ready) throw PARSER_LATE;
        const part = await stream.next(INSERT_BATCH);
        if (part) taken[given++] = part;
        return part;
      };
      try {
        return { ...(await this.write(agent, doc, share, stream, streamed)), vectors: 0 };
      } catch (err) {
        if (err !== PARSER_LATE) throw err;
        // Rolled back: the source is written once the parser is done with it.
        return await whole();
      }
    } finally {
      this.adding--;
      this.written();
    }
  }

  /** Sources are being added now. */
  get busy(): boolean {
    return this.adding > 0;
  }

  /** One transaction writing a source from its parts (`next` until null), its row and its event. */
  private async write(
    agent: VerifiedAgent,
    doc: ExtractedDocument,
    share: { sharing?: KnowledgeSharing; summary?: string },
    stream: PreparedStream,
    next: () => Promise<PreparedPart | null>,
  ): Promise<Omit<AddedSource, 'vectors'>> {
    const token = agentToken(agent.id);
    const t = this.now();
    const out = await this.outbox.transaction(async (tx, emit) => {
      const [existing] = await tx
        .select({ id: sources.id, sharing: sources.sharing, summary: sources.summary })
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, doc.name)))
        .limit(1);
      const sourceId = existing?.id ?? randomUUID();
      if (existing) await deleteChunks(tx, sql`${chunks.sourceId} = ${sourceId}`);
      let tokens = 0;
      for (let part = await next(); part; part = await next()) {
        const { start } = part;
        for (const n of part.lengths) tokens += n;
        // The FTS row of a chunk shares its id, which SQLite assigns: RETURNING hands it back.
        // Built as one flat statement (`insertRowsReturning`): drizzle's insert builder mapped
        // every value of every row through its column, a tenth of the ingest's time.
        const inserted = await insertRowsReturning<{ id: number; position: number }>(
          tx,
          'chunks',
          ['source_id', 'agent_id', 'position', 'heading_path', 'text', 'length'],
          part.texts.map((text, k) => [
            sourceId,
            agent.id,
            start + k,
            part.headings[k]!,
            text,
            part.lengths[k]!,
          ]),
          'id, position',
        );
        const idAt = new Map(inserted.map((r) => [Number(r.position), Number(r.id)]));
        await insertRows(
          tx,
          'chunks_fts',
          ['rowid', 'agent', 'terms'],
          part.terms.map((terms, k) => [idAt.get(start + k)!, token, terms]),
        );
      }
      const { keywords: kw, chunks: count } = await stream.end();
      // Replacing a source keeps its sharing unless told otherwise: a private file re-added must not turn auto.
      const sharing = share.sharing ?? existing?.sharing ?? 'auto';
      const summary = share.summary ?? existing?.summary ?? '';
      const fields = {
        sharing,
        summary,
        handle: agent.handle,
        tokens,
        format: doc.format,
        characters: doc.text.length,
        pages: doc.pages,
        chunks: count,
        keywords: kw,
        updatedAt: t,
      };
      if (existing) await tx.update(sources).set(fields).where(eq(sources.id, sourceId));
      else
        await tx
          .insert(sources)
          .values({ id: sourceId, agentId: agent.id, name: doc.name, createdAt: t, ...fields });
      emit(KnowledgeSourceAdded, {
        agentId: agent.id,
        handle: agent.handle,
        source: doc.name,
        // No extracted word leaves this service before its passage is classified: the
        // classifier announces the source again with the keywords of its non-sensitive
        // passages once it is done (see public-keywords.ts).
        keywords: [],
        chunks: count,
        sharing,
        summary,
      });
      return { replaced: existing !== undefined, sharing, summary, keywords: kw, chunks: count };
    });
    this.caches.forget(agent.id);
    return {
      source: doc.name,
      format: doc.format,
      chunks: out.chunks,
      keywords: out.keywords,
      characters: doc.text.length,
      pages: doc.pages,
      replaced: out.replaced,
      sharing: out.sharing,
      summary: out.summary,
    };
  }

  async list(agentId: string): Promise<Array<Omit<KnowledgeSourceSummary, 'sensitivity'>>> {
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

async function deleteChunks(tx: Transaction, where: SQL): Promise<void> {
  await tx.run(sql`delete from chunks_fts where rowid in (select id from chunks where ${where})`);
  await tx.run(sql`delete from chunks where ${where}`);
}
