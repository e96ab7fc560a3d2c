import type { Embedder } from '@lore/embed';
import type { Database } from '@lore/kit/db';
import type { PassageFacts, TopicMeaning } from '@lore/schema/knowledge-events';
import { cosine, float32FromBuffer } from '@lore/search';
import { sql } from 'drizzle-orm';
import type * as tables from '../tables.js';
import { embeddedText } from './vectorizer.js';

/** How a condition's topic is put to the model: a short sentence scores better than a bare word. */
export const topicSentence = (topic: string) => `About ${topic}.`;

/** The passages of a source whose mean says what the source as a whole is about. */
export const SOURCE_PASSAGES = 12;

/** Topic vectors kept: conditions are few and change rarely. */
const TOPIC_CACHE = 500;

/**
 * Scores the topics an owner's conditions name against what a draft would release — the draft
 * itself and the passages its excerpts come from — and against what the question asks. A passage's vector is the one stored for its
 * chunk at ingest (never embedded again when it is there); a chunk still waiting for it is
 * embedded on the spot, as the vectorizer would.
 */
export class TopicMeaningScorer {
  private readonly topics = new Map<string, Float32Array>();

  constructor(
    private readonly db: Database<typeof tables>,
    private readonly embedder: Embedder | null,
  ) {}

  async score(
    topics: string[],
    draft: string,
    passages: PassageFacts[],
    requests: string[] = [],
    agentId?: string,
  ): Promise<TopicMeaning> {
    if (!this.embedder) return { status: 'off', scores: [] };
    if (!topics.length) return { status: 'scored', scores: [] };
    try {
      // The draft and the question's requests in one call to the model.
      const texts = [draft.trim() ? draft : null, ...requests].filter((t): t is string => t !== null);
      const cited = [...new Set(passages.map((p) => p.source))];
      const [topicVectors, textVectors, byChunk, bySource] = await Promise.all([
        this.topicVectors(topics),
        texts.length ? this.embedder.embed(texts) : Promise.resolve([]),
        this.chunkVectors(passages.flatMap((p) => chunkIds(p.id))),
        agentId ? this.sourceVectors(agentId, cited) : Promise.resolve(new Map<string, Float32Array>()),
      ]);
      const draftVector = draft.trim() ? textVectors[0]! : null;
      const requestVectors = textVectors.slice(draft.trim() ? 1 : 0);
      return {
        status: 'scored',
        scores: topics.map((topic, i) => {
          const t = topicVectors[i]!;
          return {
            topic,
            draft: draftVector ? cosine(draftVector, t) : 0,
            requests: requestVectors.map((v) => cosine(v, t)),
            sources: [...bySource].map(([source, v]) => ({ source, score: cosine(v, t) })),
            passages: passages.map((p) => ({
              source: p.source,
              score: Math.max(
                0,
                ...chunkIds(p.id).flatMap((id) => (byChunk.has(id) ? [cosine(byChunk.get(id)!, t)] : [])),
              ),
            })),
          };
        }),
      };
    } catch {
      return { status: 'unavailable', scores: [] };
    }
  }

  private async topicVectors(topics: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(topics.filter((t) => !this.topics.has(t)))];
    if (missing.length) {
      const vectors = await this.embedder!.embed(missing.map(topicSentence));
      if (this.topics.size + missing.length > TOPIC_CACHE) this.topics.clear();
      for (const [i, t] of missing.entries()) this.topics.set(t, vectors[i]!);
    }
    return topics.map((t) => this.topics.get(t)!);
  }

  /**
   * Each cited source's mean vector: the stored vectors of its first `SOURCE_PASSAGES` chunks
   * (those still without one are embedded now, as for a cited passage).
   */
  private async sourceVectors(agentId: string, names: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (!names.length) return out;
    const rows = await this.db.all<{ id: number; source: string }>(sql`
      select c.id, s.name as source from sources s
      join chunks c on c.id in (
        select id from chunks where source_id = s.id order by position limit ${SOURCE_PASSAGES})
      where s.agent_id = ${agentId} and s.name in (${sql.join(
        names.map((n) => sql`${n}`),
        sql`, `,
      )})`);
    const vectors = await this.chunkVectors(rows.map((r) => Number(r.id)));
    for (const name of names) {
      const mine = rows.flatMap((r) =>
        r.source === name && vectors.has(Number(r.id)) ? [vectors.get(Number(r.id))!] : [],
      );
      if (!mine.length) continue;
      const mean = new Float32Array(mine[0]!.length);
      for (const v of mine) for (let i = 0; i < v.length; i++) mean[i]! += v[i]! / mine.length;
      out.set(name, mean);
    }
    return out;
  }

  /** The chunks' stored vectors of the current model; those without one are embedded now. */
  private async chunkVectors(ids: number[]): Promise<Map<number, Float32Array>> {
    const out = new Map<number, Float32Array>();
    if (!ids.length) return out;
    const rows = await this.db.all<{
      id: number;
      source: string;
      heading: string;
      text: string;
      vector: ArrayBuffer | Uint8Array | null;
      embedding: ArrayBuffer | Uint8Array | null;
      model: string | null;
    }>(sql`
      select c.id, s.name as source, c.heading_path as heading, c.text, c.vector, c.embedding,
             c.embedding_model as model
      from chunks c join sources s on s.id = c.source_id
      where c.id in (${sql.join(
        [...new Set(ids)].map((id) => sql`${id}`),
        sql`, `,
      )})`);
    const stale: typeof rows = [];
    for (const r of rows) {
      const bytes = r.model === this.embedder!.model ? (r.vector ?? r.embedding) : null;
      if (bytes) out.set(Number(r.id), float32FromBuffer(bytes));
      else stale.push(r);
    }
    if (stale.length) {
      const vectors = await this.embedder!.embed(
        stale.map((r) => embeddedText(r.source, JSON.parse(r.heading) as string[], r.text)),
      );
      for (const [i, r] of stale.entries()) out.set(Number(r.id), vectors[i]!);
    }
    return out;
  }
}

/** The chunk ids a passage fact names ("12,13"); none for an excerpt found in no passage. */
const chunkIds = (id: string) =>
  id
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
