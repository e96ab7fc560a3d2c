import { type SQL, sql } from 'drizzle-orm';
import type { DocsStore } from './store.js';

/** The corpus of Lore's own READMEs, ingested by default (the service's OWN_DOCS_SOURCE). */
export const LORE_CORPUS = 'lore';

/** A condition keeping one corpus (over the documents table aliased `d`, as the filters are). */
export const corpusSql = (corpus: string): SQL => sql`(d.data_source = ${corpus})`;

/**
 * Which documents answer_query draws on: the corpus asked for; otherwise the operator's own
 * corpora once there are any, so that Lore's READMEs (ingested by default) do not crowd them
 * out; otherwise Lore's own documentation, which is all there is.
 */
export async function answerScope(store: DocsStore, corpus: string | undefined): Promise<SQL | null> {
  if (corpus) return corpusSql(corpus);
  const corpora = await store.corpora();
  return corpora.some((c) => c !== LORE_CORPUS) ? sql`(d.data_source != ${LORE_CORPUS})` : null;
}

/** Both conditions, when both are there. */
export function both(a: SQL | null, b: SQL | null): SQL | null {
  if (a && b) return sql`(${a} and ${b})`;
  return a ?? b;
}
