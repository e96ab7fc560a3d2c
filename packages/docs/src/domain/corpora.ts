import type { Database } from '@lore/kit/db';
import { sql } from 'drizzle-orm';

export interface CorpusStats {
  source: string;
  documents: number;
  chunks: number;
  /** Epoch ms of the latest document change. */
  updated: number;
}

/** Each corpus with its documents, chunks and last change, by name. */
export async function corpusStats(db: Database): Promise<CorpusStats[]> {
  const rows = await db.all<{ source: string; documents: number; updated: number; chunks: number }>(
    sql`select d.data_source as source, count(*) as documents, max(d.update_time) as updated,
          sum((select count(*) from chunks c where c.document = d.name)) as chunks
        from documents d group by d.data_source order by d.data_source`,
  );
  return rows.map((r) => ({
    source: String(r.source),
    documents: Number(r.documents),
    chunks: Number(r.chunks ?? 0),
    updated: Number(r.updated),
  }));
}
