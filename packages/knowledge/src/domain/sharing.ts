import { notFound } from '@lore/kit';
import type { Outbox } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { KnowledgeSharing } from '@lore/schema/knowledge';
import type { SourceFacts } from '@lore/schema/knowledge-events';
import { KnowledgeSourceAdded } from '@lore/schema/knowledge-events';
import type { VerifiedAgent } from '@lore/schema/users';
import { and, eq, inArray } from 'drizzle-orm';
import * as tables from '../tables.js';
import { publicKeywords } from './public-keywords.js';

const { sources } = tables;

/**
 * How each source may be used for peers' questions, and what the gate needs to know about the
 * sources a draft cites. The users service hears every change (KnowledgeSourceAdded again), so
 * a description never shows a source that is no longer shared auto.
 */
export class SourceSharing {
  constructor(
    private readonly db: Database<typeof tables>,
    private readonly outbox: Outbox,
    /** The classification version passages must carry for their words to be public. */
    private readonly sensitivityVersion: () => string,
  ) {}

  async set(
    agent: VerifiedAgent,
    name: string,
    change: { sharing?: KnowledgeSharing; summary?: string },
  ): Promise<{ source: string; sharing: KnowledgeSharing; summary: string; previous: KnowledgeSharing }> {
    const out = await this.outbox.transaction(async (tx, emit) => {
      const [row] = await tx
        .select()
        .from(sources)
        .where(and(eq(sources.agentId, agent.id), eq(sources.name, name)))
        .limit(1);
      if (!row) return null;
      const sharing = change.sharing ?? row.sharing;
      const summary = change.summary ?? row.summary;
      await tx.update(sources).set({ sharing, summary }).where(eq(sources.id, row.id));
      emit(KnowledgeSourceAdded, {
        agentId: agent.id,
        handle: agent.handle,
        source: row.name,
        // Only the words of passages classified non-sensitive, and only for a source shared
        // auto; none while a passage waits (the classifier announces them when it is done).
        keywords: (await publicKeywords(tx, row.id, this.sensitivityVersion())) ?? [],
        chunks: row.chunks,
        sharing,
        summary,
      });
      return { source: row.name, sharing, summary, previous: row.sharing };
    });
    if (!out)
      throw notFound(`You have no knowledge source named '${name}'. listKnowledgeSources shows yours.`, {
        field: 'source',
      });
    return out;
  }

  /** Each named source's sharing of one agent (absent names are missing). */
  async sharingOf(agentId: string, names: string[]): Promise<Map<string, KnowledgeSharing>> {
    if (!names.length) return new Map();
    const rows = await this.db
      .select({ name: sources.name, sharing: sources.sharing })
      .from(sources)
      .where(and(eq(sources.agentId, agentId), inArray(sources.name, [...new Set(names)])));
    return new Map(rows.map((r) => [r.name, r.sharing]));
  }

  /** What the gate judges a cited source by: its sharing, keywords and the owner's summary. */
  async facts(agentId: string, names: string[]): Promise<Array<Omit<SourceFacts, 'subjects'>>> {
    const unique = [...new Set(names)];
    if (!unique.length) return [];
    const rows = await this.db
      .select({
        name: sources.name,
        sharing: sources.sharing,
        keywords: sources.keywords,
        summary: sources.summary,
      })
      .from(sources)
      .where(and(eq(sources.agentId, agentId), inArray(sources.name, unique)));
    const byName = new Map(rows.map((r) => [r.name, r]));
    return unique.map(
      (name) => byName.get(name) ?? { name, sharing: 'missing' as const, keywords: [], summary: '' },
    );
  }
}
