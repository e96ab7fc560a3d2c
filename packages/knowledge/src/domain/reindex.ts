import { type Database, insertRows, rebuildIndex, type Transaction } from '@lore/kit/db';
import { STEMMER_VERSION } from '@lore/search';
import { sql } from 'drizzle-orm';
import type { AgentCaches } from './agent-caches.js';
import { indexArticle } from './article-writes.js';
import { agentToken, passageText } from './knowledge-types.js';
import { indexTerms } from './search-terms.js';

/** Chunks (or articles) rewritten per transaction: searches and ingests get in between. */
export const REINDEX_BATCH = 400;

export interface ReindexOptions {
  batch?: number;
  /** Stops between batches; the next start goes on from the last batch written. */
  signal?: AbortSignal;
}

/**
 * Rewrites the knowledge FTS indexes (`chunks_fts`, `articles_fts`) from the text the tables
 * keep when they were written with another stemmer (`STEMMER_VERSION` of @lore/search, recorded
 * per index by the kit's `rebuildIndex`; a database from before it recorded none). Both indexes
 * are contentless: their rows can only be written again from `chunks` and `articles`, exactly as
 * an ingest writes them (`indexTerms` of the heading path and text, under the agent's token).
 * In batches, resumable, beside searches and ingests. When the chunks are done every agent's
 * cached term counts are dropped (`AgentCaches.forgetAll`). How many chunks and articles it
 * rewrote.
 */
export async function reindexKnowledge(
  db: Database,
  caches: AgentCaches,
  opts: ReindexOptions = {},
): Promise<{ chunks: number; articles: number }> {
  const batch = opts.batch ?? REINDEX_BATCH;
  const common = { version: STEMMER_VERSION, batch, ...(opts.signal ? { signal: opts.signal } : {}) };
  let rewroteChunks = false;
  const chunks = await rebuildIndex(db, {
    ...common,
    name: 'chunks_fts',
    rewrite: rewriteChunks,
    async finish() {
      rewroteChunks = true;
    },
  });
  // Term counts cached on the partial index (or the old one) are counted again.
  if (rewroteChunks) caches.forgetAll();
  const articles = await rebuildIndex(db, { ...common, name: 'articles_fts', rewrite: rewriteArticles });
  return { chunks, articles };
}

async function rewriteChunks(tx: Transaction, after: number, limit: number) {
  const part = await tx.all<{ id: number; agent: string; heading: string; text: string }>(sql`
    select id, agent_id as agent, heading_path as heading, text from chunks
    where id > ${after} order by id limit ${limit}`);
  if (!part.length) return null;
  const ids = part.map((r) => Number(r.id));
  await tx.run(sql`delete from chunks_fts where rowid in (${inList(ids)})`);
  await insertRows(
    tx,
    'chunks_fts',
    ['rowid', 'agent', 'terms'],
    part.map((r) => [
      Number(r.id),
      agentToken(r.agent),
      indexTerms(passageText(parseList(r.heading), r.text)),
    ]),
  );
  return { last: ids[ids.length - 1]!, rows: part.length };
}

async function rewriteArticles(tx: Transaction, after: number, limit: number) {
  const part = await tx.all<{
    seq: number;
    title: string;
    tags: string;
    summary: string;
    content: string;
  }>(sql`
    select seq, title, tags, summary, content from articles
    where seq > ${after} order by seq limit ${limit}`);
  if (!part.length) return null;
  const seqs = part.map((r) => Number(r.seq));
  await tx.run(sql`delete from articles_fts where rowid in (${inList(seqs)})`);
  for (const r of part) await indexArticle(tx, Number(r.seq), { ...r, tags: parseList(r.tags) });
  return { last: seqs[seqs.length - 1]!, rows: part.length };
}

const inList = (ids: number[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

function parseList(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    // A malformed row: indexed without it rather than not at all.
    return [];
  }
}
