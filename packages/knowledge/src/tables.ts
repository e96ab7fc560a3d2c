import type {
  ArticleCategory,
  KnowledgeFormat,
  KnowledgeSharing,
  SensitivityCategory,
} from '@lore/schema/knowledge';
import { blob, customType, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Dimensions of the vectors the `vector` column holds (the local model's). */
export const VECTOR_DIMENSIONS = 384;

/** libSQL's native vector column: float32 values, compared in SQL by `vector_distance_cos`. */
const f32Blob = customType<{ data: Buffer; driverData: Buffer; config: { dimensions: number } }>({
  dataType: (config) => `F32_BLOB(${config?.dimensions ?? VECTOR_DIMENSIONS})`,
});

/**
 * Where a chunk vector of this length is stored: the `F32_BLOB(384)` column for the local model's
 * (and any 384-dimension model's), the untyped `embedding` blob for an endpoint's of another size.
 */
export const vectorColumn = (dimensions: number): 'vector' | 'embedding' =>
  dimensions === VECTOR_DIMENSIONS ? 'vector' : 'embedding';

/** One knowledge source of one agent: a file it added, by name. */
export const sources = sqliteTable(
  'sources',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id').notNull(),
    handle: text('handle').notNull(),
    name: text('name').notNull(),
    format: text('format').$type<KnowledgeFormat>().notNull(),
    characters: integer('characters').notNull(),
    pages: integer('pages'),
    chunks: integer('chunks').notNull(),
    /** Tokens across the source's chunks: with `chunks`, the agent's mean chunk length for BM25. */
    tokens: integer('tokens').notNull().default(0),
    keywords: text('keywords', { mode: 'json' }).$type<string[]>().notNull(),
    /** auto | manual | private: how answers for peers may use it (see KnowledgeSharing). */
    sharing: text('sharing').$type<KnowledgeSharing>().notNull().default('auto'),
    /** The owner's one-line summary, the only words of a source peers may see in a description. */
    summary: text('summary').notNull().default(''),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('sources_agent_name').on(t.agentId, t.name)],
);

/**
 * The passages of a source. `id` is also the rowid of `chunks_fts` (see the fts migration),
 * which indexes the stemmed terms of the heading path and text under the agent's token.
 */
export const chunks = sqliteTable(
  'chunks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: text('source_id').notNull(),
    agentId: text('agent_id').notNull(),
    position: integer('position').notNull(),
    headingPath: text('heading_path', { mode: 'json' }).$type<string[]>().notNull(),
    text: text('text').notNull(),
    /** Token count of heading path + text, for BM25 length normalisation. */
    length: integer('length').notNull(),
    /**
     * A vector of an endpoint's model whose size is not `VECTOR_DIMENSIONS` (float32
     * little-endian, compared by `vector_distance_cos` all the same), computed in the background
     * after the chunk is written (see `Vectorizer`).
     */
    embedding: blob('embedding', { mode: 'buffer' }),
    /** The chunk's vector when it has `VECTOR_DIMENSIONS` (the local model's): libSQL's native vector. */
    vector: f32Blob('vector', { dimensions: VECTOR_DIMENSIONS }),
    /** The model (and its version) `vector` or `embedding` came from: vectors of another model are not compared. */
    embeddingModel: text('embedding_model'),
    /** What the passage holds that never leaves on its own (see domain/sensitivity.ts); null: not classified yet. */
    sensitivity: text('sensitivity', { mode: 'json' }).$type<SensitivityCategory[]>(),
    /** The rules (and model) `sensitivity` was decided with: another version is classified again. */
    sensitivityVersion: text('sensitivity_version'),
  },
  (t) => [
    index('chunks_source').on(t.sourceId),
    // An agent's chunks, and its vectors of one model (the vector scan, `hasVectors`); no index on
    // agent_id alone: this one answers those lookups too, for one b-tree insert a chunk less.
    index('chunks_agent_model').on(t.agentId, t.embeddingModel),
    // The chunks still waiting for a vector of the current model are found through it.
    index('chunks_embedding_model').on(t.embeddingModel),
    index('chunks_sensitivity_version').on(t.sensitivityVersion),
  ],
);

/** Community articles. `seq` is the rowid of `articles_fts`. */
export const articles = sqliteTable(
  'articles',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    slug: text('slug').notNull().unique(),
    title: text('title').notNull(),
    authorId: text('author_id'),
    author: text('author').notNull(),
    category: text('category').$type<ArticleCategory>().notNull(),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    summary: text('summary').notNull(),
    content: text('content').notNull(),
    /** 'agent' (published with the tool: untrusted), 'seed' (shipped with Lore), 'operator' (loaded by the CLI). */
    origin: text('origin').$type<'agent' | 'seed' | 'operator'>().notNull(),
    contentHash: text('content_hash').notNull(),
    publishedAt: integer('published_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('articles_category').on(t.category),
    index('articles_author').on(t.author),
    index('articles_published').on(t.publishedAt),
  ],
);
