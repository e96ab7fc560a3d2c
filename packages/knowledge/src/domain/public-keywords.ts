import type { Emit } from '@lore/kit/bus';
import type { Transaction } from '@lore/kit/db';
import { KnowledgeSourceAdded } from '@lore/schema/knowledge-events';
import { keywords } from '@lore/search';
import { sql } from 'drizzle-orm';
import { SOURCE_KEYWORDS } from './knowledge-types.js';

/**
 * Most characters of a source's non-sensitive passages its public keywords are picked from: the
 * keywords summarise a source, and its start says what it is about.
 */
export const PUBLIC_KEYWORDS_TEXT = 400_000;

/**
 * The keywords other services may hear about a source: picked only from its passages
 * classified non-sensitive under `version`, and only when the source is shared auto. Null while
 * a passage of it waits for its classification (nothing is said about it yet); [] for a source
 * not shared auto, or whose every passage is sensitive. The owner's own listing keeps the
 * keywords of the whole text.
 */
export async function publicKeywords(
  tx: Transaction,
  sourceId: string,
  version: string,
): Promise<string[] | null> {
  const [src] = await tx.all<{ sharing: string }>(sql`select sharing from sources where id = ${sourceId}`);
  if (!src || src.sharing !== 'auto') return [];
  const [pending] = await tx.all<{ n: number }>(sql`
    select count(*) as n from chunks where source_id = ${sourceId}
      and (sensitivity is null or sensitivity_version is null
           or sensitivity_version < ${version} or sensitivity_version > ${version})`);
  if (Number(pending?.n ?? 0) > 0) return null;
  const rows = await tx.all<{ text: string }>(sql`
    select text from chunks where source_id = ${sourceId} and sensitivity = '[]' order by position`);
  let text = '';
  for (const r of rows) {
    if (text.length + r.text.length > PUBLIC_KEYWORDS_TEXT) break;
    text += `${r.text}\n\n`;
  }
  return text ? keywords(text, SOURCE_KEYWORDS) : [];
}

/**
 * Tells the other services again what a source is (`KnowledgeSourceAdded`) once every passage of
 * it is classified: its public keywords follow its passages' classification and its sharing.
 */
export async function announceClassified(
  tx: Transaction,
  emit: Emit,
  sourceIds: Iterable<string>,
  version: string,
): Promise<void> {
  for (const id of new Set(sourceIds)) {
    const kw = await publicKeywords(tx, id, version);
    if (kw === null) continue;
    const [s] = await tx.all<{
      agent: string;
      handle: string;
      name: string;
      chunks: number;
      sharing: 'auto' | 'manual' | 'private';
      summary: string;
    }>(sql`select agent_id as agent, handle, name, chunks, sharing, summary from sources where id = ${id}`);
    if (!s) continue;
    emit(KnowledgeSourceAdded, {
      agentId: s.agent,
      handle: s.handle,
      source: s.name,
      keywords: kw,
      chunks: Number(s.chunks),
      sharing: s.sharing,
      summary: s.summary,
    });
  }
}
