import type { RowValue } from '@lore/kit/db';
import { STEMMER_VERSION } from '@lore/search';
import { type SQL, sql } from 'drizzle-orm';
import { chunkStems } from './fts-stems.js';
import type { ChunkHit } from './store.js';

export { chunkStems, titleStems } from './fts-stems.js';

// Rows per multi-row statement: well under SQLite's bound-parameter limit.
export const ROWS_PER_INSERT = 400;

export type Row = Record<string, unknown>;

/**
 * What `ftsRow` writes: its own number (bump it whenever `ftsRow` changes what a row holds) and
 * the stemmer's (`STEMMER_VERSION`, which @lore/search bumps). A database indexed otherwise is
 * rewritten in the background at start (`reindexChunks`).
 */
export const FTS_VERSION = `3+stemmer${STEMMER_VERSION}`;

/**
 * A chunk's FTS row, as Lore's stems (`stemmedText`; the table's tokenizer does not stem):
 * identifiers in the text and headings also indexed as their parts (`bodyLimit` → body limit),
 * and the document's URL path beside its title (a page at `/docs/middleware/builtin/body-limit`
 * is about a body limit whatever its title says). A chunk prepared in a parser carries its
 * stems already (`chunkStems`); `title` is the document's `titleStems`, computed once for it.
 */
export function ftsRow(
  id: number,
  title: string,
  chunk: { headingPath: string[]; text: string; stems?: { text: string; heading: string } | undefined },
): RowValue[] {
  const stems = chunk.stems ?? chunkStems(chunk);
  return [id, stems.text, title, stems.heading];
}

export function parseHeading(json: unknown): string[] {
  try {
    const v = JSON.parse(String(json)) as unknown;
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    // A malformed row: no heading path rather than no result.
    return [];
  }
}

export function toHit(r: Row): ChunkHit {
  const headingPath = parseHeading(r.heading);
  return {
    chunkId: Number(r.id),
    document: String(r.document),
    ordinal: Number(r.ordinal),
    headingPath,
    text: String(r.text),
    title: String(r.title),
    uri: String(r.uri),
    score: -Number(r.rank),
  };
}

export function inList(values: Array<string | number>): SQL {
  return sql`(${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

export function* slices<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
