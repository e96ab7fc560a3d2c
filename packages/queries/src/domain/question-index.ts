import { type Database, rebuildIndex, type Transaction } from '@lore/kit/db';
import { STEMMER_VERSION, stemmedText } from '@lore/search';
import { sql } from 'drizzle-orm';

/**
 * The full-text index of the questions asked here (`questions_fts`, for cqSummarizeAnswers'
 * best match): each row holds the question's stems (`stemmedText` of @lore/search; the table's
 * tokenizer does not stem), and searches stem their terms the same way (`stemmedMatchQuery`).
 */

/** Questions rewritten per transaction. */
export const REINDEX_BATCH = 200;

/** Indexes one question, in the transaction that stores it. */
export async function indexQuestion(
  tx: Transaction,
  q: { id: string; question: string; askerId: string },
): Promise<void> {
  await tx.run(
    sql`insert into questions_fts (question, question_id, asker_id) values (${stemmedText(q.question)}, ${q.id}, ${q.askerId})`,
  );
}

/**
 * Rewrites the index from `questions` when it was written with another stemmer
 * (`STEMMER_VERSION` of @lore/search, recorded by the kit's `rebuildIndex`) or holds fewer rows
 * than there are questions (a migration recreated it empty). In batches by rowid, each one
 * transaction that deletes and rewrites its questions' rows, so it runs beside new questions
 * (which index themselves) and searches, and a restart goes on from the last batch; `signal`
 * stops it between batches. Returns how many questions it rewrote (0 when the index was current).
 */
export async function reindexQuestions(
  db: Database,
  opts: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const [counts] = await db.all<{ questions: number; indexed: number }>(
    sql`select (select count(*) from questions) as questions, (select count(*) from questions_fts) as indexed`,
  );
  return rebuildIndex(db, {
    name: 'questions_fts',
    version: STEMMER_VERSION,
    batch: opts.batch ?? REINDEX_BATCH,
    force: Number(counts?.indexed ?? 0) < Number(counts?.questions ?? 0),
    ...(opts.signal ? { signal: opts.signal } : {}),
    async rewrite(tx, after, limit) {
      const rows = await tx.all<{ seq: number; id: string; question: string; askerId: string }>(sql`
        select rowid as seq, id, question, asker_id as askerId from questions
        where rowid > ${after} order by rowid limit ${limit}`);
      if (!rows.length) return null;
      const ids = sql.join(
        rows.map((r) => sql`${r.id}`),
        sql`, `,
      );
      await tx.run(sql`delete from questions_fts where question_id in (${ids})`);
      for (const r of rows) await indexQuestion(tx, r);
      return { last: Number(rows[rows.length - 1]!.seq), rows: rows.length };
    },
  });
}
